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

// The prerendered page's own inputs, read when the app's first render asks: that render and the commit that replaces
// them run in one task, so whatever the finder typed or unfolded until then is kept. (Read as soon as the app's code
// had loaded, a click in the moment before that render was lost.)
let prerenderedInputs: { content: HTMLTextAreaElement | null; email: HTMLInputElement | null; resumeRequest: HTMLDetailsElement | null } | null = null;

/** Marks the page as prerendered and holds on to its form's inputs inside `root`, which the app is about to replace. */
export function keepPrerenderedDraft(root: ParentNode): void {
  prerendered = true;
  prerenderedInputs = {
    content: root.querySelector('textarea'),
    email: root.querySelector<HTMLInputElement>('input[type="email"]'),
    resumeRequest: root.querySelector<HTMLDetailsElement>('details.resume-link'),
  };
}

/** Reads the prerendered inputs as they are now, once. */
function readPrerenderedInputs(): void {
  if (!prerenderedInputs) return;
  const { content: contentInput, email: emailInput, resumeRequest } = prerenderedInputs;
  prerenderedInputs = null;
  const content = contentInput?.value ?? '';
  const email = emailInput?.value ?? '';
  draft = content || email ? { content, email } : null;
  const active = document.activeElement;
  focused = active !== null && (active === contentInput || active === emailInput) ? fieldOf(active) : null;
  resumeRequestUnfolded = resumeRequest?.open ?? false;
}

/** Follows the folded resume-link request on the page shown while the item loads (its toggle events). */
export function rememberResumeRequest(unfolded: boolean): void {
  readPrerenderedInputs();
  resumeRequestUnfolded = unfolded;
}

/** Whether the request was unfolded before the app's own took its place, once. */
export function takeResumeRequestUnfolded(): boolean {
  readPrerenderedInputs();
  const taken = resumeRequestUnfolded;
  resumeRequestUnfolded = false;
  return taken;
}

/** Follows focus in the form shown while the item loads (focus and blur events of its inputs). */
export function rememberFocus(element: Element | null): void {
  readPrerenderedInputs();
  focused = fieldOf(element);
}

/** The input to focus once, then none. */
export function takePrerenderedFocus(): DraftField | null {
  readPrerenderedInputs();
  const taken = focused;
  focused = null;
  return taken;
}

export function peekPrerenderedFocus(): DraftField | null {
  readPrerenderedInputs();
  return focused;
}

/** Whether the page opened as the prerendered finder page, so its first view keeps that page's layout. */
export function openedPrerendered(): boolean {
  return prerendered;
}

/** What the finder types while the item loads, for the form that follows. */
export function rememberDraft(typed: MessageDraft): void {
  readPrerenderedInputs();
  draft = typed.content || typed.email ? typed : null;
}

export function peekPrerenderedDraft(): MessageDraft | null {
  readPrerenderedInputs();
  return draft;
}

/** The draft once: the next form starts empty. */
export function takePrerenderedDraft(): MessageDraft | null {
  readPrerenderedInputs();
  const taken = draft;
  draft = null;
  return taken;
}
