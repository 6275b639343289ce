// Product spec §9: rewardsEnabled is false. A build can turn them on with VITE_REWARDS_ENABLED=true,
// together with the items service's REWARDS_ENABLED.
export const rewardsEnabled = import.meta.env.VITE_REWARDS_ENABLED === 'true';
