/** `If-None-Match` holds a list of tags (weak ones compare equal, RFC 9110 §13.1.2) or `*`. */
export function matchesEtag(ifNoneMatch: string, etag: string): boolean {
  if (ifNoneMatch.trim() === '*') return true;
  return ifNoneMatch.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag);
}
