// Package agent runs the agentic loop shared by play and the GM assistant:
// the model answers, calls tools, reads their results and answers again,
// until it writes an answer without calling anything.
//
// Tools are internal (run at once, in the server) or external (sent to the
// client — a browser running Foundry VTT — whose result the loop awaits).
// The loop enforces the limits of the Seneschal design: a pause after a
// number of tool calls or a length of time, which the client answers with
// continue or cancel; a cap on consecutive internal calls without the model
// saying anything; a hard timeout; a timeout for external results. Every
// step is reported as an Event — content, tool_call, tool_status,
// tool_result, pause, error, done — to a sink (an SSE stream, a terminal, a
// turn record). A cancelled or failed run keeps what was produced so far.
package agent
