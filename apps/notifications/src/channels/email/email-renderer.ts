import Handlebars from 'handlebars';
import { formatTagCode, type UserLanguage } from '@homing/contracts';
import type { EmailJobMap, EmailKind } from '../../jobs/email-jobs';
import { HTML_LAYOUT, TEXT_LAYOUT } from '../../templates/layout';
import type { EmailTexts } from '../../templates/texts/email-texts';
import { en } from '../../templates/texts/en';
import { es } from '../../templates/texts/es';
import { nl } from '../../templates/texts/nl';

export const EMAIL_TEXTS: Record<UserLanguage, EmailTexts> = { en, nl, es };

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
 * Renders an e-mail from its kind, the recipient's language and the job's data: texts of the language, one layout,
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

  render<K extends EmailKind>(kind: K, language: UserLanguage, data: EmailJobMap[K]): RenderedEmail {
    const texts = EMAIL_TEXTS[language] ?? EMAIL_TEXTS.en;
    const mail = texts.mails[kind];
    const values = this.valuesOf(kind, data);
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

  private valuesOf(kind: EmailKind, data: EmailJobMap[EmailKind]): MailValues {
    const base = this.publicUrl;
    switch (kind) {
      case 'login-code': {
        const { code } = data as EmailJobMap['login-code'];
        return { code, actionUrl: `${base}/login/code?code=${encodeURIComponent(code)}`, params: {} };
      }
      case 'password-reset': {
        const { token } = data as EmailJobMap['password-reset'];
        return { actionUrl: `${base}/reset-password/${encodeURIComponent(token)}`, params: {} };
      }
      case 'welcome': {
        const { passwordToken } = data as EmailJobMap['welcome'];
        return { actionUrl: `${base}/set-password/${encodeURIComponent(passwordToken)}`, params: {} };
      }
      case 'tag-activated': {
        const tagCode = formatTagCode((data as EmailJobMap['tag-activated']).tagCode);
        return { actionUrl: `${base}/item/${encodeURIComponent(tagCode)}`, params: { tagCode } };
      }
      // Owner and finder both read the thread on the found page (the finder's browser keeps its finder token).
      case 'new-message':
      case 'owner-reply': {
        const tagCode = formatTagCode((data as EmailJobMap['new-message' | 'owner-reply']).tagCode);
        return { actionUrl: `${base}/found/${encodeURIComponent(tagCode)}`, params: { tagCode } };
      }
    }
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

function safe(html: string): Handlebars.SafeString {
  return new Handlebars.SafeString(html);
}

/** Headers are one line: CR, LF and other control characters become spaces. */
export function oneLine(value: string): string {
  // eslint-disable-next-line no-control-regex
  return value.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}
