import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { LOST_NOTE_MAX_LENGTH, type PublicItem } from '@homing/contracts';

import { FormError } from '../../../components/form/form-error';
import { errorKey, errorText, validationErrors } from '../../../lib/error-catalogue';
import { useFlash } from '../../../lib/flash';
import { useUpdateItem } from '../api';

/**
 * One tap between "I lost it" and "I have it again" (lost mode): while lost, the finder page says so with the note,
 * and the owner is told of scans. Marking it back removes the note.
 */
export function LostToggle({ item, className = 'button--secondary', named = false }: { item: PublicItem; className?: string; named?: boolean }) {
  const { t } = useTranslation();
  const flash = useFlash();
  const update = useUpdateItem(item.code);
  const name = item.name || t('items.noName');
  const toggle = () =>
    update.mutate(
      { lost: !item.lost },
      {
        onSuccess: (changed) => flash.show('success', changed.lost ? 'lostMode.markedLost' : 'lostMode.markedFound', { name }),
        onError: (error) => flash.show('error', errorKey(error)),
      },
    );
  return (
    // Named in a list of items (My items), where every card has one; alone on the item's page, its words suffice.
    <button type="button" className={className} onClick={toggle} disabled={update.isPending} aria-label={named ? `${item.lost ? t('lostMode.haveItAgain') : t('lostMode.lostIt')}: ${name}` : undefined}>
      {item.lost ? t('lostMode.haveItAgain') : t('lostMode.lostIt')}
    </button>
  );
}

/** The item page's lost mode: whether it is lost, the one-tap switch, and the note finders read while it is. */
export function LostModePanel({ item }: { item: PublicItem }) {
  const { t } = useTranslation();
  const flash = useFlash();
  const update = useUpdateItem(item.code);
  const [note, setNote] = useState(item.lost_note ?? '');
  const [noteError, setNoteError] = useState<string | null>(null);
  const noteId = useId();
  const saveNote = (event: FormEvent) => {
    event.preventDefault();
    setNoteError(null);
    update.mutate(
      { lost_note: note },
      {
        onSuccess: () => flash.show('success', 'lostMode.noteSaved'),
        onError: (error) => setNoteError(validationErrors(t, error, ['lost_note']).fields.lost_note ?? errorText(t, error)),
      },
    );
  };
  return (
    <section className={`lost-mode${item.lost ? ' lost-mode--on' : ''}`} aria-labelledby={`${noteId}-title`}>
      <h2 id={`${noteId}-title`}>{t('lostMode.title')}</h2>
      <p>{item.lost ? t('lostMode.isLost') : t('lostMode.notLost')}</p>
      <LostToggle item={item} className={item.lost ? 'button--secondary' : undefined} />
      {item.lost && (
        <form noValidate onSubmit={saveNote} className="lost-mode__note">
          <label htmlFor={noteId}>{t('lostMode.note')}</label>
          <p id={`${noteId}-hint`} className="field__hint">
            {t('lostMode.noteHint', { max: LOST_NOTE_MAX_LENGTH })}
          </p>
          <textarea
            id={noteId}
            value={note}
            maxLength={LOST_NOTE_MAX_LENGTH}
            rows={3}
            onChange={(event) => setNote(event.target.value)}
            aria-invalid={noteError ? true : undefined}
            aria-describedby={`${noteId}-hint`}
          />
          <FormError>{noteError}</FormError>
          <div className="actions">
            <button type="submit" disabled={update.isPending}>
              {t('lostMode.saveNote')}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
