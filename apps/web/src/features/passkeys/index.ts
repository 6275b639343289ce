// What other parts of the app may use of passkeys (the only way in from outside features/passkeys: see eslint.config.mjs).
export { PasskeyLogin } from './components/passkey-login';
export { PasskeysSection } from './components/passkeys-section';
