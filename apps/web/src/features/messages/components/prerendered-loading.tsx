import { useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';

import { peekPrerenderedDraft, peekPrerenderedFocus, rememberDraft, rememberFocus, rememberResumeRequest, takeResumeRequestUnfolded } from '../prerendered-draft';
import { FinderIntro } from './finder-view';
import { SafetyCard } from './handover';
import { MessageForm } from './message-form';

/**
 * While the item loads on a page that opened prerendered: the same finder page (most who open it are finders), so
 * nothing moves, the form taking text but not sending yet, and the loading text for screen readers. The folded
 * resume-link request and `after` (the owner's log-in link for a logged-out visitor) hold their places too.
 */
export function PrerenderedLoading({ after }: { after?: ReactNode }) {
  const { t } = useTranslation();
  const [initial] = useState(peekPrerenderedDraft);
  const [focusField] = useState(peekPrerenderedFocus);
  // Unfolded on the prerendered page: unfolded here too, and whatever the finder does with it is kept for the next.
  const [resumeUnfolded] = useState(() => {
    const unfolded = takeResumeRequestUnfolded();
    rememberResumeRequest(unfolded);
    return unfolded;
  });
  return (
    <>
      <FinderIntro>
        <p role="status" className="visually-hidden">
          {t('found.loading')}
        </p>
        {/* Where the finder is typing, for the form that follows (a blur towards nothing keeps the last input). */}
        <div onFocus={(event) => rememberFocus(event.target)} onBlur={(event) => event.relatedTarget && rememberFocus(event.relatedTarget)}>
          <MessageForm
            withEmail
            disabled
            initial={initial}
            focusField={focusField}
            submitLabel={t('found.sendFirst')}
            onSend={async () => null}
            onDraftChange={rememberDraft}
          />
        </div>
        <SafetyCard />
        <details className="resume-link" open={resumeUnfolded} onToggle={(event) => rememberResumeRequest(event.currentTarget.open)}>
          <summary>{t('resumeLink.summary')}</summary>
        </details>
      </FinderIntro>
      {after}
    </>
  );
}
