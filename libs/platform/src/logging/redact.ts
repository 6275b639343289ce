// Tag codes are proof of ownership and login codes are credentials: neither belongs in logs in clear.
const TAG_CODE_IN_PATH = /([0-9A-Za-z]{4}-?){3}[0-9A-Za-z]{4}/g;

// Any longer path segment of a token's alphabet (base64url, UUIDs) with a digit, a capital or an underscore in it may
// be a secret: an invitation's link token (`/invitations/{token}`), a resume link's, or an id. Tag codes are of it
// too, and are masked the same way. The API's own words (`vapid-public-key`) are lower-case letters and dashes.
const SECRET_SEGMENT = /(?<=\/)(?=[0-9A-Za-z_-]*[0-9A-Z_])[0-9A-Za-z_-]{16,}(?=[/?#.]|$)/g;

// Query strings carry e-mail addresses (`/magic-link?email=`) and login codes (`/login/code?code=`): keep the names only.
const QUERY_VALUE = /([?&][^=&#]*)=[^&#]*/g;

const lastThree = (secret: string) => `…${secret.slice(-3)}`;

/** A request target fit for a log line: no query value in clear, and of a code, token or id in its path the last three characters. */
export function maskCodes(text: string): string {
  return text.replace(QUERY_VALUE, '$1=…').replace(SECRET_SEGMENT, lastThree).replace(TAG_CODE_IN_PATH, lastThree);
}

/** Paths pino removes wherever they appear in a log object. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-finder-token"]',
  'res.headers["set-cookie"]',
  '*.email',
  '*.password',
  '*.token',
  '*.finderToken',
];
