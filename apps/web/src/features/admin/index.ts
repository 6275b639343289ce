// What other parts of the app may use of admin (the only way in from outside features/admin: see eslint.config.mjs).
export { MintBatchForm } from './components/mint-batch-form';
export { TagBatchList } from './components/tag-batch-list';
