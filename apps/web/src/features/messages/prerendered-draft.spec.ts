import { afterEach, describe, expect, it } from 'vitest';

import { keepPrerenderedDraft, openedPrerendered, takePrerenderedDraft, takePrerenderedFocus, takeResumeRequestUnfolded } from './prerendered-draft';

/** The gateway's finder page as far as the app reads it: the form and the folded resume-link request. */
function prerenderedPage(): HTMLElement {
  const root = document.createElement('div');
  root.innerHTML = `<form action="/found/X/messages" method="post"><textarea name="content"></textarea><input type="email" name="email"></form>
    <details class="resume-link"><summary>Already wrote?</summary></details>`;
  document.body.append(root);
  return root;
}

afterEach(() => {
  document.body.replaceChildren();
});

describe('what the finder did on the prerendered page', () => {
  it('is read when the app first asks, so a click or keystroke after its code loaded is kept', () => {
    const root = prerenderedPage();
    keepPrerenderedDraft(root);
    expect(openedPrerendered()).toBe(true);

    // After the app's code has loaded and before its first render: the finder types on and unfolds the request.
    root.querySelector('textarea')!.value = 'Found it at the station';
    const email = root.querySelector<HTMLInputElement>('input[type="email"]')!;
    email.value = 'finder@example.test';
    email.focus();
    root.querySelector('details')!.open = true;

    expect(takePrerenderedDraft()).toEqual({ content: 'Found it at the station', email: 'finder@example.test' });
    expect(takePrerenderedFocus()).toBe('email');
    expect(takeResumeRequestUnfolded()).toBe(true);
  });

  it('is read once: the page it came from is gone, and later forms start empty', () => {
    const root = prerenderedPage();
    keepPrerenderedDraft(root);
    root.querySelector('textarea')!.value = 'Keys on a bench';
    expect(takePrerenderedDraft()).toEqual({ content: 'Keys on a bench', email: '' });

    root.querySelector('textarea')!.value = 'typed into a page already replaced';
    root.querySelector('details')!.open = true;
    expect(takePrerenderedDraft()).toBeNull();
    expect(takeResumeRequestUnfolded()).toBe(false);
  });
});
