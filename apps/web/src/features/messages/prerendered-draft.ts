import type { MessageDraft } from './components/message-form';

// What a finder typed into the prerendered finder page (found.html) before the app took over, so the app's form
// starts with it rather than empty.
let draft: MessageDraft | null = null;
let prerendered = false;
// The input the finder was typing in, so the app's form puts them back there.
let focused: DraftField | null = null;
// Whether the finder unfolded the "already wrote?" request on a page the app then replaced: it stays unfolded.
let resumeRequestUnfolded = false;

export type DraftField = 'content' | 'email';

function fieldOf(element: Element | null): DraftField | null {
  if (element instanceof HTMLTextAreaElement) return 'content';
  if (element instanceof HTMLInputElement && element.type === 'email') return 'email';
  return null;
}

/** Reads the prerendered form's inputs inside `root`, before the app replaces them. */
export function keepPrerenderedDraft(root: ParentNode): void {
  prerendered = true;
  const content = root.querySelector('textarea')?.value ?? '';
  const email = root.querySelector<HTMLInputElement>('input[type="email"]')?.value ?? '';
  draft = content || email ? { content, email } : null;
  focused = root.contains(document.activeElement) ? fieldOf(document.activeElement) : null;
  resumeRequestUnfolded = root.querySelector('details.resume-link')?.hasAttribute('open') ?? false;
}

/** Follows the folded resume-link request on the page shown while the item loads (its toggle events). */
export function rememberResumeRequest(unfolded: boolean): void {
  resumeRequestUnfolded = unfolded;
}

/** Whether the request was unfolded before the app's own took its place, once. */
export function takeResumeRequestUnfolded(): boolean {
  const taken = resumeRequestUnfolded;
  resumeRequestUnfolded = false;
  return taken;
}

/** Follows focus in the form shown while the item loads (focus and blur events of its inputs). */
export function rememberFocus(element: Element | null): void {
  focused = fieldOf(element);
}

/** The input to focus once, then none. */
export function takePrerenderedFocus(): DraftField | null {
  const taken = focused;
  focused = null;
  return taken;
}

export function peekPrerenderedFocus(): DraftField | null {
  return focused;
}

/** Whether the page opened as the prerendered finder page, so its first view keeps that page's layout. */
export function openedPrerendered(): boolean {
  return prerendered;
}

/** What the finder types while the item loads, for the form that follows. */
export function rememberDraft(typed: MessageDraft): void {
  draft = typed.content || typed.email ? typed : null;
}

export function peekPrerenderedDraft(): MessageDraft | null {
  return draft;
}

/** The draft once: the next form starts empty. */
export function takePrerenderedDraft(): MessageDraft | null {
  const taken = draft;
  draft = null;
  return taken;
}
