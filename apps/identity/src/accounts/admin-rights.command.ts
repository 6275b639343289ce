import { emailSchema } from '@homing/contracts';
import { withDatabase, type ServiceCommand } from '@homing/platform';
import type { IdentityConfig } from '../config/identity.config';
import { identityDatabase } from '../database/identity.database';
import { UsersRepository } from './users.repository';

/** `o***@example.test`: enough for an operator to recognise the account, not the address in clear in a log. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  return `${email.slice(0, Math.min(1, at))}***${email.slice(at)}`;
}

/** The address after `--email`, checked; throws a message an operator can act on. */
export function emailArgument(args: string[]): string {
  const flag = args.indexOf('--email');
  const value = flag >= 0 ? args[flag + 1] : undefined;
  if (!value) throw new Error('--email <address> is required');
  const parsed = emailSchema.safeParse(value);
  if (!parsed.success) throw new Error('--email is not a valid e-mail address');
  return parsed.data;
}

/**
 * `main.js grant-admin --email <address>` / `revoke-admin --email <address>`: sets the user's admin right. Access
 * tokens carry `is_admin` as read at login and refresh, so a grant takes effect at the user's next token; the gateway
 * asks identity on every admin request too (`identity.rpc.admin-rights`), so a revocation takes effect at once.
 */
function adminRightsCommand(isAdmin: boolean): ServiceCommand<IdentityConfig> {
  return {
    describe: isAdmin ? `grant a user's admin rights (--email <address>); effective from their next access token` : `revoke a user's admin rights (--email <address>); effective at once`,
    async run(config, args) {
      const email = emailArgument(args);
      const userId = await withDatabase(identityDatabase(config), (database) => new UsersRepository(database).setAdminByEmail(undefined, email, isAdmin));
      if (!userId) throw new Error(`no user has the address ${maskEmail(email)}`);
      process.stdout.write(`identity: user ${userId} (${maskEmail(email)}) is ${isAdmin ? 'now an admin, from their next access token' : 'no longer an admin'}\n`);
    },
  };
}

export const grantAdminCommand = adminRightsCommand(true);
export const revokeAdminCommand = adminRightsCommand(false);
