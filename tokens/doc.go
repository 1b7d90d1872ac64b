// Package tokens counts tokens with the cl100k_base encoding, offline: the
// encoding's ranks are compiled into the binary, so counting never touches
// the network. Counts are used to keep context packets inside a budget;
// cl100k is a good-enough proxy for the tokenizers of most local models.
//
// The encoder is tiktoken's byte pair encoding over a vocabulary held
// without pointers (2 MB the garbage collector never scans); the tests
// hold it to tiktoken-go's tokens, which it replaced.
package tokens
