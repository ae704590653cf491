// Tests use the same seeded generator as the bootstrap, so random inputs replay exactly.
export { seededRandom as prng } from '../../source/score/bootstrap.ts';
