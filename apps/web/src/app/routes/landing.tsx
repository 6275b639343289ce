import { useId, useState } from 'react';
import { Trans, useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { formatTagCode, parseTagCode } from '@homing/contracts';

// An example of the code printed on every tag, as people read it.
const EXAMPLE_CODE = 'ABCD-EFGH-JKMN-PQRS';

export function LandingPage() {
  const { t } = useTranslation();
  const productName = t('common.productName');

  return (
    <section className="page landing">
      <title>{productName}</title>
      <h1>{productName}</h1>
      <p className="landing__tagline">{t('landing.tagline')}</p>
      <TagCodeForm />
    </section>
  );
}

/** A finder types the code printed on the tag (any case, dashes or not) and goes to its finder page. */
function TagCodeForm() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [value, setValue] = useState('');
  const [invalid, setInvalid] = useState(false);
  const id = useId();

  return (
    <form
      className="tag-code-form"
      noValidate
      aria-labelledby={`${id}-title`}
      onSubmit={(event) => {
        event.preventDefault();
        const code = parseTagCode(value);
        setInvalid(!code);
        if (code) void navigate(`/found/${formatTagCode(code)}`);
      }}
    >
      <h2 id={`${id}-title`}>{t('landing.foundTitle')}</h2>
      <div className="field">
        <label htmlFor={id}>{t('landing.codeLabel')}</label>
        <p id={`${id}-hint`} className="field__hint">
          {/* The example code never breaks across lines (at 360 px it did, at its dashes). */}
          <Trans i18nKey="landing.codeHint" values={{ example: EXAMPLE_CODE }} components={{ code: <code className="tag-code" /> }} />
        </p>
        <input
          id={id}
          value={value}
          onChange={(event) => setValue(event.target.value)}
          autoCapitalize="characters"
          autoComplete="off"
          spellCheck={false}
          aria-invalid={invalid || undefined}
          aria-describedby={invalid ? `${id}-hint ${id}-error` : `${id}-hint`}
        />
        {invalid && (
          <p id={`${id}-error`} className="field__error" role="alert">
            {t('landing.codeInvalid')}
          </p>
        )}
      </div>
      <button type="submit">{t('landing.codeSubmit')}</button>
    </form>
  );
}
