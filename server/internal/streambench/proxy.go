package streambench

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// Proxy is the peer measured beside hearth: a bare net/http SSE proxy
// with no auth, no storage and no agent. POST /api/chat asks the model
// at modelURL (OpenAI's wire format) for a streamed answer and forwards
// each token as hearth's content event, flushed at once. Each chunk is
// decoded with encoding/json, as the plainest Go proxy would.
func Proxy(modelURL string, client *http.Client) http.Handler {
	const request = `{"model":"fake","stream":true,"messages":[{"role":"user","content":"describe the jump drive"}]}`
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		if r.Method != http.MethodPost || r.URL.Path != "/api/chat" {
			http.NotFound(w, r)
			return
		}
		req, err := http.NewRequestWithContext(r.Context(), "POST", modelURL+"/v1/chat/completions", strings.NewReader(request))
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := client.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			http.Error(w, "model: "+resp.Status, http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		rc := http.NewResponseController(w)
		var out []byte
		br := bufio.NewReader(resp.Body)
		for {
			line, err := br.ReadSlice('\n')
			if err != nil {
				return
			}
			data, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data: "))
			if !ok {
				continue
			}
			if string(data) == "[DONE]" {
				io.WriteString(w, "data: {\"type\":\"done\"}\n\n")
				rc.Flush()
				io.Copy(io.Discard, resp.Body) // the connection goes back to the pool
				return
			}
			var chunk struct {
				Choices []struct {
					Delta struct {
						Content string `json:"content"`
					} `json:"delta"`
				} `json:"choices"`
			}
			if json.Unmarshal(data, &chunk) != nil {
				continue
			}
			for _, c := range chunk.Choices {
				if c.Delta.Content == "" {
					continue
				}
				text, _ := json.Marshal(c.Delta.Content)
				out = append(append(append(out[:0], `data: {"type":"content","text":`...), text...), "}\n\n"...)
				if _, err := w.Write(out); err != nil {
					return
				}
				if rc.Flush() != nil {
					return
				}
			}
		}
	})
}
