// The one-shot chat command (seed 000 §3.4): "/sen-ai question" in the
// chat log asks Hearth once, without the panel's conversation, and posts
// the answer as a chat message whispered to the asker unless a GM asks.
import { GM_ROLE } from "./constants.mjs";
import { t } from "./env.mjs";
import { markdownToHTML, escapeHTML } from "./markdown.mjs";

/**
 * Whom the answer is whispered to: nobody (public) for a GM, the asker
 * otherwise.
 * @param {{id: string, role: number, isGM?: boolean}} user
 * @returns {string[]}
 */
export function whisperFor(user) {
  return user.isGM || user.role >= GM_ROLE ? [] : [user.id];
}

/**
 * The query in message if it is the command, else null.
 * @param {string} message
 * @param {string} prefix
 * @returns {string | null}
 */
export function parseCommand(message, prefix) {
  const p = (prefix || "/sen-ai").trim();
  const m = String(message ?? "").trimStart();
  if (!m.startsWith(p + " ") && !m.startsWith(p + "\n")) return null;
  const q = m.slice(p.length).trim();
  return q === "" ? null : q;
}

/**
 * Answer a one-shot query: a "thinking" message first, replaced by the
 * answer (or the error).
 * @param {string} query
 * @param {object} deps
 * @param {any} deps.user the asking Foundry user
 * @param {any} deps.ChatMessage the ChatMessage class
 * @param {(query: string) => Promise<import("./session.mjs").ChatResult>} deps.ask
 * @returns {Promise<any>} the chat message
 */
export async function answerOneShot(query, { user, ChatMessage, ask }) {
  const whisper = whisperFor(user);
  const speaker = { alias: t("SENESCHAL.Name") };
  const msg = await ChatMessage.create({
    content: `<div class="seneschal-thinking">${escapeHTML(t("SENESCHAL.Thinking"))}</div>`,
    speaker,
    whisper,
  });
  try {
    const res = await ask(query);
    const body = res.text.trim() || res.error || t("SENESCHAL.NoAnswer");
    await msg.update({
      content: `<div class="seneschal-answer"><p class="seneschal-query">${escapeHTML(query)}</p>${markdownToHTML(body)}</div>`,
    });
  } catch (err) {
    const text = err instanceof Error ? err.message : String(err);
    await msg.update({ content: `<div class="seneschal-error">${escapeHTML(t("SENESCHAL.Error"))}: ${escapeHTML(text)}</div>` });
  }
  return msg;
}
