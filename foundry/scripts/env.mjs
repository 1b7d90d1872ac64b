// Foundry's globals, read at call time so a test harness (or the Chromium
// harness page) can install fakes on globalThis before calling in.
//
// The types' own `game` global resolves to `never` under checkJs with
// foundry-vtt-types 13.340.1, while the `Game` class types fine; reading
// through globalThis with one cast keeps every use below type-checked.

/** @returns {ReadyGame} */
export function getGame() {
  return /** @type {ReadyGame} */ (/** @type {any} */ (globalThis).game);
}

/** @returns {any} the CONFIG object; its data models are system-specific */
export function getConfig() {
  return /** @type {any} */ (globalThis).CONFIG;
}

/**
 * The current user's id, name and role.
 * @returns {{id: string, name: string, role: number, isGM: boolean, character: {id: string} | null}}
 */
export function currentUser() {
  const u = /** @type {any} */ (getGame().user);
  return { id: u.id, name: u.name, role: u.role, isGM: !!u.isGM, character: u.character ?? null };
}

/**
 * Translate a key through game.i18n, falling back to the key itself
 * before i18n is ready.
 * @param {string} key
 * @param {Record<string, string>} [data]
 * @returns {string}
 */
export function t(key, data) {
  const i18n = /** @type {any} */ (globalThis).game?.i18n;
  if (!i18n) return key;
  return data ? i18n.format(key, data) : i18n.localize(key);
}
