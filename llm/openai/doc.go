// Package openai is an llm.Provider for servers that speak OpenAI's Chat
// Completions API: OpenAI itself, OpenRouter, vLLM, the llama.cpp server,
// LM Studio and the like. It streams chat replies (text as it arrives, tool
// calls once their arguments are whole), lists models, and embeds text,
// through the official openai-go SDK with its retries turned off: Hearth
// retries in its own wrapper, guided by the llm.Error kinds this package
// returns.
package openai
