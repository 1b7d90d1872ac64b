/** The module's id, as module.json and game.settings know it. */
export const MODULE_ID = "hearth-seneschal";

/** Foundry's user role for a game master (CONST.USER_ROLES.GAMEMASTER). */
export const GM_ROLE = 4;
