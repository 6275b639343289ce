/**
 * Response codes the API answers with. Those named in the product spec keep its spelling, typos included
 * (`ITEM_CLAIMED_SUCCESFULLY`): clients match on them.
 */
export const ResponseCode = {
  NEW_USER_REGISTERED: 'NEW_USER_REGISTERED',
  ITEM_CLAIMED_SUCCESFULLY: 'ITEM_CLAIMED_SUCCESFULLY',
  ALREADY_CLAIMED: 'ALREADY_CLAIMED',
  VALIDATION_ERROR: 'VALIDATION_ERROR',
  EXPIRED_PASSWORD_TOKEN: 'EXPIRED_PASSWORD_TOKEN',
  INVALID_PASSWORD_TOKEN: 'INVALID_PASSWORD_TOKEN',
  EMAIL_ALREADY_REGISTERED: 'EMAIL_ALREADY_REGISTERED',
  CANNOT_FIND_YOUR_OWN_ITEM: 'CANNOT_FIND_YOUR_OWN_ITEM',
  ITEM_NOT_FOUND: 'ITEM_NOT_FOUND',
  INVALID_CREDENTIALS: 'INVALID_CREDENTIALS',
  LOGIN_CODE_EXPIRED: 'LOGIN_CODE_EXPIRED',
  REGISTRATION_DISABLED: 'REGISTRATION_DISABLED',
  SESSION_EXPIRED: 'SESSION_EXPIRED',
  NOT_FOUND: 'NOT_FOUND',
  MALFORMED_REQUEST: 'MALFORMED_REQUEST',
  UNAUTHORIZED: 'UNAUTHORIZED',
  FORBIDDEN: 'FORBIDDEN',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  RATE_LIMITED: 'RATE_LIMITED',
  SERVICE_UNAVAILABLE: 'SERVICE_UNAVAILABLE',
  SERVICE_BUSY: 'SERVICE_BUSY',
  SERVICE_TIMEOUT: 'SERVICE_TIMEOUT',
  /** The Idempotency-Key was already used for a request with other content. */
  IDEMPOTENCY_KEY_REUSED: 'IDEMPOTENCY_KEY_REUSED',
  /** A finder's resume link that is unknown, altered, or whose conversation has been idle too long (or is gone). */
  RESUME_LINK_EXPIRED: 'RESUME_LINK_EXPIRED',
  /** The owner answered a finder who has since deleted their conversation: they cannot be reached any more. */
  FINDER_LEFT: 'FINDER_LEFT',
  /** The item was handed over with the hand-over code: its conversation takes no more messages. */
  CONVERSATION_CLOSED: 'CONVERSATION_CLOSED',
  /** Both sides agreed to share contact details: the agreement cannot be withdrawn any more. */
  CONTACT_ALREADY_SHARED: 'CONTACT_ALREADY_SHARED',
  /** An item has ITEM_PEOPLE_MAX people and open invitations already. */
  TOO_MANY_PEOPLE: 'TOO_MANY_PEOPLE',
  /** The address is already a person of the item, or has an open invitation of that kind. */
  ALREADY_INVITED: 'ALREADY_INVITED',
  /** An invitation link that is unknown, used, cancelled or past its 7 days. */
  INVITATION_EXPIRED: 'INVITATION_EXPIRED',
  /** Adding a passkey needs a log-in of the last PASSKEY_RECENT_LOGIN_MINUTES: log in again. */
  RECENT_LOGIN_REQUIRED: 'RECENT_LOGIN_REQUIRED',
  /** The account has PASSKEYS_PER_USER_MAX passkeys already. */
  TOO_MANY_PASSKEYS: 'TOO_MANY_PASSKEYS',
  /** `DELETE /user` erased the account: every token of it stops working at once. */
  USER_DELETED: 'USER_DELETED',
  INTERNAL_ERROR: 'INTERNAL_ERROR',
} as const;

export type ResponseCode = (typeof ResponseCode)[keyof typeof ResponseCode];
