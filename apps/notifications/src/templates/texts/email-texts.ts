import type { UserLanguage } from '@homing/contracts';
import type { EmailKind } from '../../jobs/email-jobs';

/** One e-mail's words. Subjects come from here only, never from user input, so nothing can inject a header. */
export interface MailTexts {
  subject: string;
  /** Paragraphs before the code or button. */
  intro: string[];
  /** The button's label; the link itself is built from PUBLIC_URL. */
  action: string;
  /** Paragraphs after the button. */
  outro: string[];
  /** Instead of the layout's footer, for a mail to someone who may have no account (a finder) or no longer has one. */
  footer?: string;
}

/** Every word of every e-mail in one language; one typed file per language. */
export interface EmailTexts {
  layout: {
    greeting: string;
    /** Under the button: for mail readers that do not show buttons. */
    linkHint: string;
    signature: string;
    footer: string;
  };
  mails: Record<EmailKind, MailTexts>;
  /**
   * Where a scan alert says the tag was scanned (`{{place}}`), as far as the scanning address told: `{{city}}` (in
   * English, as the offline database names it) and `{{country}}` (its name in this language).
   */
  scanPlace: { cityAndCountry: string; city: string; country: string; unknown: string };
  /**
   * How the passkey mails name the passkey (`{{passkey}}`, mid-sentence): with `{{provider}}`, the public name of the
   * authenticator's model ("iCloud Keychain"), or without when the authenticator did not tell.
   */
  passkey: { withProvider: string; unknown: string };
  /** The welcome mail to a user who chose a password at activation: an invitation to log in, no set-password link. */
  welcomeWithPassword: MailTexts;
  /**
   * An invitation to take an item over (`mails.invitation` is the one to share it). Neither names the inviter's address
   * nor the item (the event carries no name): the invitation page shows what it offers. `{{validDays}}`: how long the
   * link holds.
   */
  transferInvitation: MailTexts;
}

export type { UserLanguage };
