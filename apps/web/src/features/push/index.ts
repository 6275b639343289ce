// What other features may use of push (the only way in from outside features/push: see eslint.config.mjs).
export { PushOptIn } from './push-opt-in';
export { forgetFinderPush, unsubscribeOwnerPush } from './push-subscription';
