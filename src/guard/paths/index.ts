export { PATH_RULES, checkPaths, resolveRoots, writesInside, type PathPolicy, type PathRule } from './check-paths.ts';
export { isInside, realPathOf, systemPathFs, type PathFs } from './real-path.ts';
export { TREE_READERS, treePaths, type TreeRead } from './tree-readers.ts';
