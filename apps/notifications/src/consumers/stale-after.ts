/** Secrets-stream events are kept 15 minutes; a login code lives 10, a reset link 60: older than this, no mail. */
export const SECRET_MAIL_STALE_AFTER_MS = 15 * 60 * 1000;
/** A "your tag is active" mail a day late is still useful; later than that it only confuses. */
export const ACTIVATION_MAIL_STALE_AFTER_MS = 24 * 60 * 60 * 1000;
/** A message notice later than a day is noise: push services drop undelivered pushes after 24 h as well (TTL). */
export const MESSAGE_NOTICE_STALE_AFTER_MS = 24 * 60 * 60 * 1000;
/** A scan alert a day late is still worth telling (the owner may not have seen the push); later is noise, as a message's. */
export const SCAN_ALERT_STALE_AFTER_MS = 24 * 60 * 60 * 1000;
/**
 * A passkey added to or deleted from an account is a security notice: still worth sending a day late (the mail says
 * when it happened), as a scan alert is; older than that is a backlog being caught up, not news to send.
 */
export const ACCOUNT_SECURITY_MAIL_STALE_AFTER_MS = 24 * 60 * 60 * 1000;
