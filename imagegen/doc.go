// Package imagegen makes scene illustrations: a provider-agnostic
// Provider (a prompt, a size and a count in, PNG bytes and what made them
// out) with adapters for the OpenAI Images API and any server that speaks
// it (OpenAI) and for Imagen through the genai SDK (Gemini), the
// deterministic scene-to-prompt template (ScenePrompt), and the Store
// that keeps generated images with their game.
//
// Every adapter bounds what it reads (Options.MaxResponse) and accepts
// only PNG: an answer that is larger, is not JSON of the documented
// shape, or holds no PNG is an error naming the provider, coded
// hearth.Unavailable so that the API answers 503 rather than 500 (a
// refused prompt or size is hearth.Invalid, 400). It
// must not know games or roles: server/gameapi decides what a scene is
// and who may see its images.
package imagegen
