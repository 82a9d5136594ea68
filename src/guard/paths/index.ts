export { PATH_RULES, checkPaths, resolveRoots, stateRootsOf, writesInside, type PathPolicy, type PathRule, type StateRoots } from './check-paths.ts';
export { isInside, realPathOf, systemPathFs, type PathFs } from './real-path.ts';
export { TREE_READERS, treePaths, type TreeRead } from './tree-readers.ts';
export { daemonStateRoots } from './daemon-places.ts';
