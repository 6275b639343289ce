// Tag codes are proof of ownership and login codes are credentials: neither belongs in logs in clear.
const TAG_CODE_IN_PATH = /([0-9A-Za-z]{4}-?){3}[0-9A-Za-z]{4}/g;

// Query strings carry e-mail addresses (`/magic-link?email=`) and login codes (`/login/code?code=`): keep the names only.
const QUERY_VALUE = /([?&][^=&#]*)=[^&#]*/g;

export function maskCodes(text: string): string {
  return text.replace(QUERY_VALUE, '$1=…').replace(TAG_CODE_IN_PATH, (code) => `…${code.slice(-3)}`);
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
