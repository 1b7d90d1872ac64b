// Image delivery (seed 000 §4.3.7): the server copies an image into the
// Foundry assets itself (direct mode) or answers shuttle mode, and the
// browser fetches the bytes with the user's key and uploads them with
// FilePicker.upload.

/**
 * The FilePicker class: foundry.applications.apps.FilePicker in v13, the
 * global FilePicker in v12.
 * @returns {any}
 */
export function filePickerClass() {
  const g = /** @type {any} */ (globalThis);
  return g.foundry?.applications?.apps?.FilePicker?.implementation ?? g.foundry?.applications?.apps?.FilePicker ?? g.FilePicker;
}

/**
 * Deliver an image into the Foundry assets and return its path there.
 * @param {import("./api.mjs").HearthClient} client
 * @param {string | number} imageId
 * @param {string} [targetPath] where under the assets directory; the server's suggestion otherwise
 * @returns {Promise<{path: string, mode: "direct" | "shuttle"}>}
 */
export async function deliverImage(client, imageId, targetPath) {
  const ans = await client.deliverImage(imageId, targetPath);
  if (ans.mode === "direct") return { path: ans.fvtt_path, mode: "direct" };
  const path = ans.suggested_path;
  const blob = await client.imageData(ans.data_url);
  const slash = path.lastIndexOf("/");
  const dir = slash >= 0 ? path.slice(0, slash) : "";
  const name = slash >= 0 ? path.slice(slash + 1) : path;
  const FP = filePickerClass();
  if (!FP?.upload) throw new Error("FilePicker.upload is not available");
  if (dir && FP.createDirectory) {
    // Make each level; an existing one is not an error.
    let at = "";
    for (const part of dir.split("/")) {
      at = at ? `${at}/${part}` : part;
      try {
        await FP.createDirectory("data", at, {});
      } catch {
        // exists already
      }
    }
  }
  // The server sends the stored type: WebP, or JPEG for a picture a PDF
  // had as a JPEG; the name's ending says it when the type is missing.
  const type = blob.type || (/\.jpe?g$/i.test(name) ? "image/jpeg" : "image/webp");
  const file = new File([blob], name, { type });
  const res = await FP.upload("data", dir, file, {}, { notify: false });
  return { path: res?.path ?? path, mode: "shuttle" };
}

/**
 * The library image ids an answer mentions: "hearth-image:<id>" (what
 * image_search gives) and links to /api/images/<id> or its /data, in
 * order of first mention.
 * @param {string} text
 * @returns {string[]}
 */
export function imageRefs(text) {
  const ids = new Set();
  for (const m of String(text ?? "").matchAll(/hearth-image:(\d+)|\/api\/images\/(\d+)(?:\/data)?\b/g)) ids.add(m[1] ?? m[2]);
  return [...ids];
}

/**
 * Whether the panel offers "Import to Foundry" to user: a GM, or a player
 * who owns an actor and so has somewhere to use an image. Shuttle uploads
 * still need Foundry's FILES_UPLOAD, which FilePicker enforces.
 * @param {any} user
 * @param {any} [actors] game.actors
 * @returns {boolean}
 */
export function canImportImages(user, actors) {
  if (!user) return false;
  if (user.isGM || user.role >= 4) return true;
  for (const a of actors?.contents ?? []) {
    if (a.testUserPermission?.(user, "OWNER")) return true;
  }
  return false;
}

/**
 * Deliver an image for the panel's button and tell the user where it went
 * (or why not) through notify.
 * @param {import("./api.mjs").HearthClient} client
 * @param {string | number} imageId
 * @param {{info: (m: string) => void, error: (m: string) => void}} notify
 * @param {(key: string, data?: Record<string, string>) => string} t
 * @returns {Promise<string>} the Foundry path, or "" on failure
 */
export async function importImage(client, imageId, notify, t) {
  try {
    const { path } = await deliverImage(client, imageId);
    notify.info(t("SENESCHAL.Images.Imported", { path }));
    return path;
  } catch (err) {
    notify.error(t("SENESCHAL.Images.Failed", { id: String(imageId), error: err instanceof Error ? err.message : String(err) }));
    return "";
  }
}
