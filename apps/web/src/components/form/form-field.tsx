import { useId, type InputHTMLAttributes, type ReactNode } from 'react';
import { useFormState, type FieldError, type FieldValues, type Path, type UseFormReturn } from 'react-hook-form';

interface FormFieldProps<Values extends FieldValues> extends Omit<InputHTMLAttributes<HTMLInputElement>, 'name' | 'form'> {
  label: string;
  /** The form and the field's name: the input is registered there, and shows that field's error. */
  form: UseFormReturn<Values>;
  name: Path<Values>;
  hint?: ReactNode;
}

/** A labelled input whose error is tied to it (aria-describedby) and announced when it appears. */
export function FormField<Values extends FieldValues>({ label, form, name, hint, ...input }: FormFieldProps<Values>) {
  const id = useId();
  const { errors } = useFormState({ control: form.control, name });
  const error = errors[name] as FieldError | undefined;
  const hintId = `${id}-hint`;
  const errorId = `${id}-error`;
  const describedBy = [hint ? hintId : null, error ? errorId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p id={hintId} className="field__hint">
          {hint}
        </p>
      )}
      <input id={id} aria-invalid={error ? true : undefined} aria-describedby={describedBy} {...input} {...form.register(name)} />
      {error?.message && (
        <p id={errorId} className="field__error" role="alert">
          {error.message}
        </p>
      )}
    </div>
  );
}
