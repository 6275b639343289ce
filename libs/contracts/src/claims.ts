import { z } from 'zod';
import { emailSchema } from './identity';

/**
 * `POST /api/v1/claim`: activate a tag with an e-mail address. Holding the tag (its unguessable code) is the proof
 * of ownership. A logged-in caller claims for themselves: the token's address is used and `email` is ignored.
 */
export const claimBodySchema = z.strictObject({
  code: z.string().min(1).max(64),
  email: emailSchema.optional(),
});
export type ClaimBody = z.infer<typeof claimBodySchema>;

/** The activation answers of the product spec (spelling included): a new user gets a set-password and a login token. */
export const claimResponseSchema = z.discriminatedUnion('response_code', [
  z.object({ response_code: z.literal('NEW_USER_REGISTERED'), password_token: z.string(), login_token: z.string() }),
  z.object({ response_code: z.literal('ITEM_CLAIMED_SUCCESFULLY') }),
]);
export type ClaimResponse = z.infer<typeof claimResponseSchema>;
