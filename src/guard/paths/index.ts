export { PATH_RULES, ROOTS_TTL_MS, checkPaths, resolveRoots, stateRootsOf, writesInside, type PathPolicy, type PathRule, type StateRoots } from './check-paths.ts';
export { isInside, realPathOf, type PathFs } from './real-path.ts';
export { TREE_READERS, treePaths, type TreeRead } from './tree-readers.ts';
export { daemonStateRoots } from './daemon-places.ts';
export { gitDirFinding, gitDirWrites } from './git-dirs.ts';
