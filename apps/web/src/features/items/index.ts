// What other features may use of items (the only way in from outside features/items: see eslint.config.mjs).
export { QrImage } from './components/qr-image';
