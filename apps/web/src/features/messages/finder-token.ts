// WARNING: persisted in finders' browsers; renaming the prefix loses every finder's way back into their conversation.
const finderTokenPrefix = 'homing.finder.';

/** The finder token of the conversation this browser opened about an item (ARCHITECTURE §8), if any. */
export function storedFinderToken(code: string): string | null {
  try {
    return localStorage.getItem(finderTokenPrefix + code);
  } catch {
    return null;
  }
}

export function storeFinderToken(code: string, token: string | null): void {
  try {
    if (token) localStorage.setItem(finderTokenPrefix + code, token);
    else localStorage.removeItem(finderTokenPrefix + code);
  } catch {
    // Storage unavailable: the conversation lasts as long as the page.
  }
}

export function finderHeaders(token: string | null): Record<string, string> | undefined {
  return token ? { 'X-Finder-Token': token } : undefined;
}
