// One chat request from start to end: streams the answer, runs the
// external tools the model calls (in this browser, with this user's
// permissions) and posts their results, and hands pauses to the caller.
import { runTool } from "./tools.mjs";

/**
 * @typedef {object} ChatHandlers
 * @property {(text: string) => void} [onContent]
 * @property {(message: string) => void} [onStatus] tool progress and tool calls
 * @property {(e: import("./api.mjs").ChatEvent) => Promise<"continue" | "cancel">} [onPause] resolve with the user's choice; without it a pause cancels
 * @property {(message: string, recoverable: boolean) => void} [onError]
 * @property {(conversationId: string) => void} [onConversation]
 */

/**
 * @typedef {object} ChatResult
 * @property {string} conversationId
 * @property {string} text all content received
 * @property {boolean} done whether the server sent done
 * @property {string} error the last error event's message, or ""
 * @property {number} toolCalls external tools run
 */

/**
 * Run one chat request to its end.
 * @param {object} opts
 * @param {import("./api.mjs").HearthClient} opts.client
 * @param {import("./api.mjs").ChatRequest} opts.request
 * @param {any} opts.user the Foundry user the tools run as
 * @param {number} opts.maxWrites fvtt_write calls allowed (maxActionsPerRequest)
 * @param {ChatHandlers} [opts.handlers]
 * @param {AbortSignal} [opts.signal]
 * @returns {Promise<ChatResult>}
 */
export async function runChat({ client, request, user, maxWrites, handlers = {}, signal }) {
  /** @type {ChatResult} */
  const result = { conversationId: request.conversation_id ?? "", text: "", done: false, error: "", toolCalls: 0 };
  const budget = { writes: 0, maxWrites };
  await client.streamChat(
    request,
    async (/** @type {import("./api.mjs").ChatEvent} */ e) => {
      switch (e.type) {
        case "content":
          result.text += e.text ?? "";
          handlers.onContent?.(e.text ?? "");
          break;
        case "tool_status":
          handlers.onStatus?.(e.message ?? "");
          break;
        case "tool_result":
          if (e.summary) handlers.onStatus?.(`${e.tool}: ${e.summary}`);
          break;
        case "tool_call": {
          handlers.onStatus?.(e.tool ?? "");
          result.toolCalls++;
          const out = await runTool(e.tool ?? "", e.args, { user, budget, client });
          await client.toolResult(result.conversationId, e.id ?? "", out);
          break;
        }
        case "pause": {
          const choice = handlers.onPause ? await handlers.onPause(e) : "cancel";
          await client.continueChat(result.conversationId, choice);
          break;
        }
        case "error":
          result.error = e.message ?? "";
          handlers.onError?.(result.error, !!e.recoverable);
          break;
        case "done":
          result.done = true;
          break;
        default: // newer event types are ignored
      }
    },
    signal,
    (id) => {
      // tool_result and continue need the id, which only the response header gives.
      if (id) result.conversationId = id;
      handlers.onConversation?.(result.conversationId);
    },
  );
  return result;
}

/**
 * The user_context of seed 000 §2.3 for a Foundry user.
 * @param {any} user
 * @param {any} [actors] game.actors
 * @returns {import("./api.mjs").UserContext}
 */
export function buildUserContext(user, actors) {
  /** @type {string[]} */
  const owned = [];
  for (const a of actors?.contents ?? []) {
    if (a.testUserPermission?.(user, "OWNER")) owned.push(a.id);
  }
  /** @type {import("./api.mjs").UserContext} */
  const ctx = { userId: user.id, userName: user.name, role: user.role, ownedActorIds: owned };
  if (user.character?.id) ctx.characterId = user.character.id;
  return ctx;
}
