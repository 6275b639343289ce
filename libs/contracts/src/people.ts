import { z } from 'zod';
import { emailSchema } from './identity';

/** Everyone of an item: its owner and co-owners, and invitations still open, together at most this many. */
export const ITEM_PEOPLE_MAX = 10;
/** An invitation (to share an item, or to take it over) is valid this long, and once. */
export const INVITATION_VALID_DAYS = 7;

/** Who a person is to an item: the owner (renames, deletes, resets, invites, hands over) or a co-owner. */
export const itemRoleSchema = z.enum(['owner', 'co-owner']);
export type ItemRole = z.infer<typeof itemRoleSchema>;

/** What an invitation offers: to share the item as a co-owner, or to become its owner (a transfer). */
export const invitationKindSchema = z.enum(['co-owner', 'transfer']);
export type InvitationKind = z.infer<typeof invitationKindSchema>;

/** `POST /api/v1/user/items/{code}/co-owners` and `POST /api/v1/user/items/{code}/transfer`: the invitee's address. */
export const inviteBodySchema = z.strictObject({ email: emailSchema });
export type InviteBody = z.infer<typeof inviteBodySchema>;

/** The invitation just sent (its link went by e-mail only). */
export const invitationSentSchema = z.object({ invitation_id: z.uuid(), expires_at: z.string() });
export type InvitationSent = z.infer<typeof invitationSentSchema>;

/** `GET /api/v1/user/items/{code}/co-owners`: the people of the item and the invitations still open (owner and co-owners see it). */
export const itemPeopleSchema = z.object({
  people: z.array(z.object({ id: z.uuid(), email: z.string().nullable(), role: itemRoleSchema, added_at: z.string(), is_you: z.boolean() })),
  invitations: z.array(z.object({ id: z.uuid(), email: z.string(), kind: invitationKindSchema, expires_at: z.string() })),
});
export type ItemPeople = z.infer<typeof itemPeopleSchema>;

/** `GET /api/v1/invitations/{token}`: what the link offers, before it is accepted. */
export const invitationSchema = z.object({
  kind: invitationKindSchema,
  item_name: z.string().nullable(),
  /** The address it was sent to. */
  email: z.string(),
  expires_at: z.string(),
});
export type Invitation = z.infer<typeof invitationSchema>;

/** An invitation's token: 22 base64url characters (128 random bits), kept only as a hash. */
export const invitationTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{22}$/);

/** `GET/PATCH /api/v1/user/items/{code}/notifications`: how this person of the item is told (both on by default). */
export const itemNotificationSettingsSchema = z.object({ email: z.boolean(), push: z.boolean() });
export type ItemNotificationSettings = z.infer<typeof itemNotificationSettingsSchema>;
export const itemNotificationSettingsBodySchema = z.strictObject({ email: z.boolean().optional(), push: z.boolean().optional() });
export type ItemNotificationSettingsBody = z.infer<typeof itemNotificationSettingsBodySchema>;

/** `POST /api/v1/invitations/{token}/accept`: the item now shared (or handed over) and, for an account made for the invited address, activation's tokens. */
export const invitationAcceptedSchema = z.object({
  code: z.string(),
  response_code: z.enum(['NEW_USER_REGISTERED', 'ITEM_CLAIMED_SUCCESFULLY']),
  password_token: z.string().optional(),
  login_token: z.string().optional(),
});
export type InvitationAccepted = z.infer<typeof invitationAcceptedSchema>;
