// Package pdf extracts a PDF into the shared document model
// (ingest.Document): page text in reading order with running headers,
// footers and page numbers removed, the bookmark tree (or, without one, a
// section tree found from the table of contents or from font sizes and
// weights), and the embedded images as lossless WebP.
//
// It uses PDFium compiled to WebAssembly (go-pdfium's webassembly package,
// run by wazero), so it needs no cgo. An Extractor owns a small pool of
// PDFium instances; each instance is single-threaded, and one Extract call
// spreads its pages over the instances it can get. Page text is read by
// calling PDFium's exports in the instance directly (rawtext.go), at a
// tenth of go-pdfium's cost per character; PDFium's own page parsing is
// then nearly all of the time.
//
// The package reads untrusted files: it guards page counts and per-page
// text sizes, turns PDFium failures into the sentinel errors ErrCorrupt,
// ErrEncrypted, ErrNoText and ErrTooLarge, and never panics on bad input.
// It must not chunk, store or caption anything: that is the ingest
// pipeline's job.
package pdf
