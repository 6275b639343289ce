import { useTranslation } from 'react-i18next';

import { PageTitle } from '../../../components/page-title';
import { rewardsEnabled } from '../../../lib/config';

export function RewardsPage() {
  const { t } = useTranslation();
  return (
    <section className="page">
      <PageTitle title={t('rewards.title')} />
      <h1>{t('rewards.title')}</h1>
      <p>{t('rewards.text')}</p>
      {!rewardsEnabled && <p className="notice">{t('rewards.disabled')}</p>}
    </section>
  );
}

export { RewardsPage as Component };
