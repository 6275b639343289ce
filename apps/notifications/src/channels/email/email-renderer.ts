import Handlebars from 'handlebars';
import { formatTagCode, INVITATION_VALID_DAYS, type UserLanguage } from '@homing/contracts';
import type { EmailJob } from '../../jobs/email-jobs';
import type { ScanOfAlert } from '../scan-of-alert';
import { HTML_LAYOUT, TEXT_LAYOUT } from '../../templates/layout';
import type { EmailTexts } from '../../templates/texts/email-texts';
import { en } from '../../templates/texts/en';
import { es } from '../../templates/texts/es';
import { nl } from '../../templates/texts/nl';

export const EMAIL_TEXTS: Record<UserLanguage, EmailTexts> = { en, nl, es };

/**
 * Times in mails: users keep no time zone, and Homing's owners are in the Netherlands, so Amsterdam's time, with the
 * zone's name written out (CET/CEST) for a reader elsewhere.
 */
export const MAIL_TIME_ZONE = 'Europe/Amsterdam';

export interface RenderedEmail {
  subject: string;
  html: string;
  text: string;
}

type Template = Handlebars.TemplateDelegate;

/** What a mail shows besides its texts: a code in large type, and the link behind its button. */
interface MailValues {
  code?: string;
  actionUrl: string;
  /** Values the texts may name (`{{tagCode}}`). */
  params: Record<string, string>;
}

/**
 * Renders an e-mail from its job (kind and data) and the recipient's language: texts of the language, one layout,
 * an HTML part (every value escaped by handlebars) and a plain-text part. The subject is the language's text,
 * flattened to one line so nothing can ever add a header.
 */
export class EmailRenderer {
  private readonly handlebars = Handlebars.create();
  private readonly html: Template;
  private readonly text: Template;
  // Texts are compiled once per language and paragraph: they may name values, which are escaped like any other.
  private readonly compiled = new Map<string, { html: Template; text: Template }>();

  constructor(private readonly publicUrl: string) {
    this.html = this.handlebars.compile(HTML_LAYOUT, { strict: true });
    this.text = this.handlebars.compile(TEXT_LAYOUT, { strict: true, noEscape: true });
  }

  /**
   * `recipient.hasPassword`: a welcome mail to a user who already chose a password (at activation) invites them to log
   * in instead of offering a set-password link. `recipient.resumeToken`: a finder's mail links to their conversation
   * with it, so it opens in any browser. `recipient.scan`: what a scan alert tells, asked of items when it is sent.
   */
  render(job: EmailJob, language: UserLanguage, recipient: { hasPassword?: boolean; resumeToken?: string; scan?: ScanOfAlert } = {}): RenderedEmail {
    const texts = EMAIL_TEXTS[language] ?? EMAIL_TEXTS.en;
    const withPassword = job.kind === 'welcome' && recipient.hasPassword === true;
    const transfer = job.kind === 'invitation' && job.data.invitationKind === 'transfer';
    const mail = withPassword ? texts.welcomeWithPassword : transfer ? texts.transferInvitation : texts.mails[job.kind];
    const values = withPassword ? { actionUrl: `${this.publicUrl}/login`, params: {} } : this.valuesOf(job, recipient, language, texts);
    const paragraphs = (list: string[], mode: 'html' | 'text') => list.map((paragraph) => this.paragraph(paragraph, mode)(values.params));
    const context = (mode: 'html' | 'text') => ({
      language,
      subject: oneLine(mail.subject),
      ...texts.layout,
      footer: mail.footer ?? texts.layout.footer,
      intro: paragraphs(mail.intro, mode),
      outro: paragraphs(mail.outro, mode),
      action: mail.action,
      actionUrl: values.actionUrl,
      code: values.code ?? false,
    });
    // Paragraphs rendered for HTML are already escaped: handing them to the layout as SafeString avoids escaping twice.
    const htmlContext = context('html');
    return {
      subject: oneLine(mail.subject),
      html: this.html({ ...htmlContext, intro: htmlContext.intro.map(safe), outro: htmlContext.outro.map(safe) }),
      text: this.text(context('text')),
    };
  }

  private valuesOf(mail: EmailJob, { resumeToken, scan }: { resumeToken?: string; scan?: ScanOfAlert }, language: UserLanguage, texts: EmailTexts): MailValues {
    const base = this.publicUrl;
    switch (mail.kind) {
      case 'login-code':
        return { code: mail.data.code, actionUrl: `${base}/login/code?code=${encodeURIComponent(mail.data.code)}`, params: {} };
      case 'password-reset':
        return { actionUrl: `${base}/reset-password/${encodeURIComponent(mail.data.token)}`, params: {} };
      case 'welcome':
        return { actionUrl: `${base}/set-password/${encodeURIComponent(mail.data.passwordToken)}`, params: {} };
      // An owner's links go through the login page, which sends a logged-in owner on at once and a logged-out one
      // after logging in (`ec`: the item page, `c`: the thread on the found page), never to the finder's form.
      case 'tag-activated': {
        const tagCode = formatTagCode(mail.data.tagCode);
        return { actionUrl: `${base}/login?ec=${encodeURIComponent(tagCode)}`, params: { tagCode } };
      }
      case 'new-message': {
        const tagCode = formatTagCode(mail.data.tagCode);
        return { actionUrl: `${base}/login?c=${encodeURIComponent(tagCode)}`, params: { tagCode } };
      }
      case 'scan-alert': {
        if (!scan) throw new Error('a scan alert is rendered with its scan');
        const tagCode = formatTagCode(mail.data.tagCode);
        const scannedAt = formatMailTime(scan.scannedAt, language);
        return { actionUrl: `${base}/login?ec=${encodeURIComponent(tagCode)}`, params: { tagCode, scannedAt, place: this.placeOf(scan, language, texts) } };
      }
      // A finder's mails link with a resume token: the thread opens in whichever browser they read mail in.
      case 'owner-reply':
      case 'resume-link':
      case 'relay-acknowledgement': {
        const tagCode = formatTagCode(mail.data.tagCode);
        const resume = resumeToken ? `?resume=${encodeURIComponent(resumeToken)}` : '';
        return { actionUrl: `${base}/found/${encodeURIComponent(tagCode)}${resume}`, params: { tagCode } };
      }
      // Nothing of the account is left to link to: the home page, to start over.
      case 'account-deleted':
        return { actionUrl: `${base}/`, params: {} };
      // The invitation page says what the link offers and lets the invitee accept, logged in or not.
      case 'invitation':
        return { actionUrl: `${base}/invite/${encodeURIComponent(mail.data.token)}`, params: { validDays: String(INVITATION_VALID_DAYS) } };
      // The account page lists the passkeys; logged out, it asks to log in first.
      case 'passkey-added':
      case 'passkey-deleted': {
        const passkey = mail.data.provider?.trim() ? this.paragraph(texts.passkey.withProvider, 'text')({ provider: mail.data.provider.trim() }) : texts.passkey.unknown;
        return { actionUrl: `${base}/account`, params: { occurredAt: formatMailTime(mail.data.occurredAt, language), passkey } };
      }
    }
  }

  /** Plain text, escaped like any value where the paragraph that names it is rendered for HTML. */
  private placeOf(scan: ScanOfAlert, language: UserLanguage, texts: EmailTexts): string {
    const country = countryName(scan.country, language);
    const city = scan.city?.trim() || null;
    const source = city && country ? texts.scanPlace.cityAndCountry : city ? texts.scanPlace.city : country ? texts.scanPlace.country : texts.scanPlace.unknown;
    return this.paragraph(source, 'text')({ city, country });
  }

  private paragraph(source: string, mode: 'html' | 'text'): Template {
    let entry = this.compiled.get(source);
    if (!entry) {
      entry = {
        html: this.handlebars.compile(source, { strict: true }),
        text: this.handlebars.compile(source, { strict: true, noEscape: true }),
      };
      this.compiled.set(source, entry);
    }
    return entry[mode];
  }
}

/** A time as a mail writes it: date and time in `MAIL_TIME_ZONE`, in the reader's language, the zone named. */
export function formatMailTime(iso: string, language: UserLanguage): string {
  const options: Intl.DateTimeFormatOptions = { year: 'numeric', month: 'long', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone: MAIL_TIME_ZONE, timeZoneName: 'short' };
  return new Intl.DateTimeFormat(language, options).format(new Date(iso));
}

/** An ISO 3166-1 alpha-2 code's name in the reader's language; null for none or a code that is not one. */
export function countryName(code: string | null, language: UserLanguage): string | null {
  if (!code || !/^[A-Za-z]{2}$/.test(code)) return null;
  return new Intl.DisplayNames([language], { type: 'region' }).of(code.toUpperCase()) ?? null;
}

function safe(html: string): Handlebars.SafeString {
  return new Handlebars.SafeString(html);
}

/** Headers are one line: CR, LF and other control characters become spaces. */
export function oneLine(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}
