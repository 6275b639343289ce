import { useEffect, useId, useRef, useState, type FormEvent, type KeyboardEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { MESSAGE_MAX_LENGTH } from '@homing/contracts';

export interface MessageDraft {
  content: string;
  email: string;
}

interface MessageFormProps {
  /** The first message also asks for the finder's optional e-mail. */
  withEmail?: boolean;
  submitLabel: string;
  /**
   * Sends the draft; resolves to the draft to put back in the inputs when sending failed, with the field the server
   * refused, if it named one.
   */
  onSend(draft: MessageDraft): Promise<RefusedDraft | null>;
  error?: string | null;
  /** What the inputs start with. */
  initial?: MessageDraft | null;
  /** Not sendable yet (the page is still loading); the inputs take text all the same. */
  disabled?: boolean;
  /** Told of every change of the inputs. */
  onDraftChange?(draft: MessageDraft): void;
  /** The input to focus when the form appears, with the caret at its end (the finder was typing there). */
  focusField?: 'content' | 'email' | null;
  /**
   * Where the form posts when the page has no script (the server-rendered finder page): the browser then sends the
   * named inputs and `hiddenFields` itself, and the gateway answers with the page again.
   */
  action?: string;
  hiddenFields?: Readonly<Record<string, string>>;
  /** A field's problem the form starts with (the server found it in what was posted). */
  initialProblem?: FieldProblem | null;
}

export interface FieldProblem {
  field: 'content' | 'email';
  text: string;
}

export type RefusedDraft = MessageDraft & { problem?: FieldProblem | null };

// Plain inputs rather than react-hook-form and zod: this form is on the page a finder's phone loads first. The address
// is checked as the gateway checks it: zod's `z.email()` pattern (zod/v4/core `regexes.email`), copied to keep zod out
// of this page's code (message-form.spec.ts holds the two alike).
export const FINDER_EMAIL = /^(?:[A-Za-z0-9_'+-]+\.)*[A-Za-z0-9_'+-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9-]*\.)+[A-Za-z]{2,}$/;

/** A message and, for a first message, an optional e-mail. Cmd/Ctrl+Enter sends (spec §2). */
export function MessageForm({
  withEmail = false,
  submitLabel,
  onSend,
  error,
  initial,
  disabled = false,
  onDraftChange,
  focusField,
  action,
  hiddenFields,
  initialProblem = null,
}: MessageFormProps) {
  const { t } = useTranslation();
  const id = useId();
  const [content, setContent] = useState(initial?.content ?? '');
  const [email, setEmail] = useState(initial?.email ?? '');
  const [problem, setProblem] = useState<FieldProblem | null>(initialProblem);
  const [sending, setSending] = useState(false);
  const form = useRef<HTMLFormElement>(null);

  const [startFocus] = useState(focusField);

  useEffect(() => {
    if (!startFocus) return;
    const input = form.current?.querySelector<HTMLTextAreaElement | HTMLInputElement>(startFocus === 'content' ? 'textarea' : 'input[type="email"]');
    input?.focus();
    // E-mail inputs have no selection to set (the browser throws).
    if (input instanceof HTMLTextAreaElement) input.setSelectionRange(input.value.length, input.value.length);
  }, [startFocus]);

  const send = async () => {
    if (sending || disabled) return;
    if (!content.trim()) return setProblem({ field: 'content', text: t('validation.required') });
    if (withEmail && email.trim() && !FINDER_EMAIL.test(email.trim())) return setProblem({ field: 'email', text: t('validation.emailInvalid') });
    setProblem(null);
    setSending(true);
    // Cleared at once: the message shows in the thread while it is sent, and comes back here if sending fails.
    setContent('');
    setEmail('');
    const restored = await onSend({ content: content.trim(), email: email.trim() });
    setSending(false);
    if (restored) {
      setContent(restored.content);
      setEmail(restored.email);
      setProblem(restored.problem ?? null);
    }
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void send();
  };
  const keyDown = (event: KeyboardEvent) => {
    if (event.key === 'Enter' && (event.metaKey || event.ctrlKey)) {
      event.preventDefault();
      void send();
    }
  };

  return (
    <form ref={form} noValidate onSubmit={submit} onKeyDown={keyDown} className="message-form" {...(action ? { method: 'post', action } : {})}>
      {Object.entries(hiddenFields ?? {}).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <div className="field">
        <label htmlFor={`${id}-content`}>{t('found.message')}</label>
        <textarea
          id={`${id}-content`}
          name="content"
          rows={4}
          maxLength={MESSAGE_MAX_LENGTH}
          value={content}
          onChange={(event) => {
            setContent(event.target.value);
            onDraftChange?.({ content: event.target.value, email });
          }}
          aria-invalid={problem?.field === 'content' ? true : undefined}
          aria-describedby={problem?.field === 'content' ? `${id}-problem` : undefined}
        />
        {problem?.field === 'content' && (
          <p id={`${id}-problem`} className="field__error" role="alert">
            {problem.text}
          </p>
        )}
      </div>
      {withEmail && (
        <div className="field">
          <label htmlFor={`${id}-email`}>{t('found.emailOptional')}</label>
          <p id={`${id}-hint`} className="field__hint">
            {t('found.emailHint')}
          </p>
          <input
            id={`${id}-email`}
            name="email"
            type="email"
            autoComplete="email"
            value={email}
            onChange={(event) => {
              setEmail(event.target.value);
              onDraftChange?.({ content, email: event.target.value });
            }}
            aria-invalid={problem?.field === 'email' ? true : undefined}
            aria-describedby={problem?.field === 'email' ? `${id}-hint ${id}-problem` : `${id}-hint`}
          />
          {problem?.field === 'email' && (
            <p id={`${id}-problem`} className="field__error" role="alert">
              {problem.text}
            </p>
          )}
        </div>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" disabled={sending || disabled}>
        {submitLabel}
      </button>
    </form>
  );
}
