import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

const FOCUSABLE = 'a[href], button:not([disabled]), input:not([disabled]), textarea:not([disabled]), select:not([disabled]), [tabindex]:not([tabindex="-1"])';

interface ModalProps {
  title: string;
  onClose(): void;
  children: ReactNode;
  /** `alertdialog` for confirmations. */
  role?: 'dialog' | 'alertdialog';
}

/**
 * A modal dialog (spec §2): Escape closes it, Tab stays inside it, and focus goes back to where it was when it closes.
 * The first focusable element gets focus, so a confirmation puts its confirm button first and Enter confirms.
 */
export function Modal({ title, onClose, children, role = 'dialog' }: ModalProps) {
  const titleId = useId();
  const box = useRef<HTMLDivElement>(null);
  const close = useRef(onClose);
  close.current = onClose;

  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    box.current?.querySelector<HTMLElement>(FOCUSABLE)?.focus();
    return () => opener?.focus();
  }, []);

  const keyDown = (event: React.KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.stopPropagation();
      close.current();
      return;
    }
    if (event.key !== 'Tab' || !box.current) return;
    const focusable = [...box.current.querySelectorAll<HTMLElement>(FOCUSABLE)];
    if (focusable.length === 0) return;
    const first = focusable[0];
    const last = focusable[focusable.length - 1];
    if (event.shiftKey && document.activeElement === first) {
      event.preventDefault();
      last.focus();
    } else if (!event.shiftKey && document.activeElement === last) {
      event.preventDefault();
      first.focus();
    }
  };

  return (
    <div className="modal-backdrop">
      <div ref={box} className="modal" role={role} aria-modal="true" aria-labelledby={titleId} onKeyDown={keyDown}>
        <h2 id={titleId}>{title}</h2>
        {children}
      </div>
    </div>
  );
}

interface ConfirmModalProps {
  title: string;
  text: string;
  confirmLabel: string;
  cancelLabel: string;
  /** What confirming does; while it runs the button waits. It closes or replaces the modal itself when it succeeds. */
  action(): Promise<void>;
  /** A failed action: told (e.g. by a flash) before the modal closes. */
  onError(error: unknown): void;
  onClose(): void;
}

/** A confirmation of something that cannot be undone: its confirm button first (Enter confirms), then cancel. */
export function ConfirmModal({ title, text, confirmLabel, cancelLabel, action, onError, onClose }: ConfirmModalProps) {
  const [busy, setBusy] = useState(false);
  const confirm = async () => {
    setBusy(true);
    try {
      await action();
    } catch (error) {
      onError(error);
      setBusy(false);
      onClose();
    }
  };
  return (
    <Modal title={title} onClose={onClose} role="alertdialog">
      <p>{text}</p>
      <div className="actions">
        <button type="button" className="button--danger" onClick={() => void confirm()} disabled={busy}>
          {confirmLabel}
        </button>
        <button type="button" className="button--secondary" onClick={onClose}>
          {cancelLabel}
        </button>
      </div>
    </Modal>
  );
}
