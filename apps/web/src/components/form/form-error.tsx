import type { ReactNode } from 'react';

// Apart from FormField: the finder page shows server errors with it, and must not load react-hook-form for that.

/** A form-wide error (from the server), announced when it appears. */
export function FormError({ children }: { children?: ReactNode }) {
  if (!children) return null;
  return (
    <p className="form-error" role="alert">
      {children}
    </p>
  );
}
