// Permission checks of seed 000 §3.5.1: every tool runs as the user whose
// browser runs it, with that user's Foundry permissions.
import { GM_ROLE } from "./constants.mjs";

/** @typedef {"NONE" | "LIMITED" | "OBSERVER" | "OWNER"} PermissionLevel */

/**
 * @typedef {object} PermissionTarget a Foundry document
 * @property {(user: any, level: any, options?: object) => boolean} testUserPermission
 */

/**
 * Whether user may access document at level. A GM may access everything.
 * @param {PermissionTarget} document
 * @param {{role: number, isGM?: boolean} | null | undefined} user
 * @param {PermissionLevel} level
 * @returns {boolean}
 */
export function canUserAccess(document, user, level) {
  if (!user || !document) return false;
  if (user.isGM || user.role >= GM_ROLE) return true;
  return document.testUserPermission(user, level) === true;
}

/**
 * Writing needs ownership.
 * @param {PermissionTarget} document
 * @param {{role: number, isGM?: boolean} | null | undefined} user
 * @returns {boolean}
 */
export function canUserModify(document, user) {
  return canUserAccess(document, user, "OWNER");
}
