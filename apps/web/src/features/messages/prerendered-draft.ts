import type { MessageDraft } from './components/message-form';

// What a finder typed into the prerendered finder page (found.html) before the app took over, so the app's form
// starts with it rather than empty.
let draft: MessageDraft | null = null;

/** Reads the prerendered form's inputs inside `root`, before the app replaces them. */
export function keepPrerenderedDraft(root: ParentNode): void {
  const content = root.querySelector('textarea')?.value ?? '';
  const email = root.querySelector<HTMLInputElement>('input[type="email"]')?.value ?? '';
  draft = content || email ? { content, email } : null;
}

/** The draft once: the next form starts empty. */
export function takePrerenderedDraft(): MessageDraft | null {
  const taken = draft;
  draft = null;
  return taken;
}
