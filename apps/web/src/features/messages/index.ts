// What other features may use of messages (the only way in from outside features/messages: see eslint.config.mjs).
export { finderHeaders } from './finder-token';
