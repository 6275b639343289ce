import { createInstance, type TFunction } from 'i18next';
import { describe, expect, it } from 'vitest';

import en from '../i18n/locales/en.json';
import { ApiError, CLIENT_RATE_LIMIT_MESSAGE } from './api-transport';
import { errorText, validationErrors, validationText } from './error-catalogue';

const i18n = createInstance();
void i18n.init({ lng: 'en', resources: { en: { translation: en } }, initAsync: false, interpolation: { escapeValue: false } });
const t = i18n.t.bind(i18n) as TFunction;
const http = (status: number, code?: string, validation?: Record<string, string>) => new ApiError('http', 'x', status, code, validation as never);

describe('the error catalogue', () => {
  it('maps HTTP statuses without a known response code to the spec’s fallbacks', () => {
    expect(errorText(t, http(401))).toBe('You are not allowed to perform this action.');
    expect(errorText(t, http(404))).toBe('The requested resource was not found on our server.');
    expect(errorText(t, http(422))).toBe('Input data contains errors.');
    expect(errorText(t, http(500))).toBe('Our server seems to be having some troubles.');
    expect(errorText(t, http(503))).toBe('Our server seems to be having some troubles.');
    expect(errorText(t, http(429))).toBe('You are making too many requests.');
    expect(errorText(t, http(418))).toBe("An error has occured that we can't explain. Sincerely sorry.");
    expect(errorText(t, new Error('boom'))).toBe("An error has occured that we can't explain. Sincerely sorry.");
  });

  it('maps response codes to their texts', () => {
    expect(errorText(t, http(401, 'INVALID_CREDENTIALS'))).toBe('Invalid login credentials.');
    expect(errorText(t, http(422, 'LOGIN_CODE_EXPIRED'))).toBe('Your login code has expired.');
    expect(errorText(t, http(422, 'INVALID_PASSWORD_TOKEN'))).toBe('Token is invalid.');
    expect(errorText(t, http(422, 'EXPIRED_PASSWORD_TOKEN'))).toMatch(/^Token has expired\./);
    expect(errorText(t, http(409, 'EMAIL_ALREADY_REGISTERED'))).toBe('An account with this email address already exists.');
    expect(errorText(t, http(429, 'RATE_LIMITED'))).toBe('You are making too many requests.');
    expect(errorText(t, http(409, 'CONVERSATION_CLOSED'))).toBe('This conversation is closed: the item was handed over.');
    expect(errorText(t, http(409, 'CONTACT_ALREADY_SHARED'))).toMatch(/^You both agreed already/);
  });

  it('lets a screen choose its own text for a code or a status', () => {
    expect(errorText(t, http(404, 'ITEM_NOT_FOUND'), { ITEM_NOT_FOUND: 'errors.itemNotFoundOnSave' })).toBe('The item you are trying to save was not found.');
    expect(errorText(t, http(401, 'UNAUTHORIZED'), { 401: 'errors.invalidCredentials' })).toBe('Invalid login credentials.');
  });

  it('says a request cancelled by the client’s rate limit was cancelled', () => {
    expect(errorText(t, new ApiError('rate-limited', CLIENT_RATE_LIMIT_MESSAGE))).toBe('Too many requests (rate limit exceeded).');
  });

  it('turns validation rules into messages', () => {
    expect(validationText(t, 'required')).toBe('This field is required.');
    expect(validationText(t, 'min=8')).toBe('Minimum: 8.');
    expect(validationText(t, 'max=100')).toBe('Maximum: 100.');
    expect(validationText(t, 'email')).toBe('Invalid email address.');
    expect(validationText(t, 'invalid')).toBe('Invalid value.');
    expect(validationText(t, 'min')).toBe('Invalid value.');
    expect(validationText(t, 'max=')).toBe('Invalid value.');
  });

  it('places messages by input name and names the fields the form does not show', () => {
    const error = http(422, 'VALIDATION_ERROR', { name: 'required', reward: 'max=10000000', inputName: 'invalid' });
    expect(validationErrors(t, error, ['name', 'reward'])).toEqual({
      fields: { name: 'This field is required.', reward: 'Maximum: 10000000.' },
      others: ['inputName is invalid.'],
    });
  });
});
