import type { z } from 'zod';
import type { ValidationMap, ValidationRule } from './http-error';

/**
 * Turns zod issues into the HTTP contract's validation map (field → `required` | `min=N` | `max=N` | `email` | `invalid`),
 * one rule per field, the first broken one. `input` is the value that was parsed.
 */
export function toValidationMap(error: z.ZodError, input?: unknown): ValidationMap {
  const map: ValidationMap = {};
  for (const issue of error.issues) {
    const field = issue.path.length > 0 ? issue.path.map(String).join('.') : '_';
    if (field in map) continue;
    map[field] = ruleOf(issue, valueAt(input, issue.path));
  }
  return map;
}

// zod does not keep the offending value on its issues; look it up to tell "missing" from "wrong".
function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.prototype.hasOwnProperty.call(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** Fields that are not in the schema (mass assignment), or null when there are none. */
export function unknownFieldsOf(error: z.ZodError): string[] | null {
  const keys = error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys' ? issue.keys.map((key) => [...issue.path.map(String), key].join('.')) : [],
  );
  return keys.length > 0 ? keys : null;
}

function ruleOf(issue: z.core.$ZodIssue, value: unknown): ValidationRule {
  switch (issue.code) {
    case 'invalid_type':
      return value === undefined || value === null ? 'required' : 'invalid';
    case 'too_small':
      if (issue.origin === 'string' && Number(issue.minimum) === 1) return 'required';
      return `min=${Number(issue.minimum)}`;
    case 'too_big':
      return `max=${Number(issue.maximum)}`;
    case 'invalid_format':
      return issue.format === 'email' ? 'email' : 'invalid';
    default:
      return 'invalid';
  }
}
