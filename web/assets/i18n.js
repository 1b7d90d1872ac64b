// Messages: English and German catalogs, chosen by the browser's language
// or the switcher; the choice is a preference, not a secret, so it is kept.

const LANGS = ["en", "de"];
const PREF = "hearth.lang";

export async function loadCatalog(lang) {
  const res = await fetch(new URL(`./i18n/${lang}.json`, import.meta.url));
  if (!res.ok) throw new Error(`messages ${lang}: ${res.status}`);
  return res.json();
}

export function pickLanguage() {
  const saved = localStorage.getItem(PREF);
  if (LANGS.includes(saved)) return saved;
  for (const l of navigator.languages || [navigator.language || "en"]) {
    const base = String(l).toLowerCase().split("-")[0];
    if (LANGS.includes(base)) return base;
  }
  return "en";
}

export function saveLanguage(lang) {
  if (LANGS.includes(lang)) localStorage.setItem(PREF, lang);
}

// translator returns t(key, vars): the message with {name}s filled in, as
// plain text (the caller puts it in a text node).
export function translator(messages, fallback) {
  return (key, vars = {}) => {
    const m = messages[key] ?? fallback[key] ?? key;
    return m.replace(/\{(\w+)\}/g, (all, k) => (k in vars ? String(vars[k]) : all));
  };
}
