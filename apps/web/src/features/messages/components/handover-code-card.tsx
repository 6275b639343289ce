import { useId } from 'react';
import { useTranslation } from 'react-i18next';

import { FormError } from '../../../components/form/form-error';
import { errorText } from '../../../lib/error-catalogue';
import { useHandoverCode } from '../owner-queries';
import { SafetyCard } from './handover';

// The owner's side of the hand-over, apart from the finder's (handover.tsx): its query is a TanStack one, which the
// finder page's own entry does not load.

/** "482913" → "482 913": two groups of three are easier to read out and to hear. */
export function spacedHandoverCode(code: string): string {
  return code.replace(/^(\d{3})(\d{3})$/, '$1 $2');
}

/** The owner's side of the hand-over: today's code, big, to tell only the person handing the item over. */
export function HandoverCodeCard({ code }: { code: string }) {
  const { t } = useTranslation();
  const id = useId();
  const handoverCode = useHandoverCode(code, true);
  return (
    <section className="handover-panel" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>{t('handover.ownerTitle')}</h2>
      {handoverCode.isPending && <p role="status">{t('common.loading')}</p>}
      {handoverCode.isError && <FormError>{errorText(t, handoverCode.error)}</FormError>}
      {handoverCode.data && <p className="handover-code">{spacedHandoverCode(handoverCode.data.code)}</p>}
      <p>{t('handover.ownerIntro')}</p>
      <SafetyCard />
    </section>
  );
}
