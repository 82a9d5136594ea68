/** The seed's capability table: every capability a tool may declare, with its meaning. */
export const CAPABILITIES = {
  'fs.read': 'read the file system',
  'fs.write': 'write the file system',
  'process.exec': 'run processes',
  'process.manage': 'manage processes (signals, stdin)',
  'code.exec': 'run code',
  'network.outbound': 'make outbound network requests',
  'scheduler.write': 'create scheduled jobs',
  'skill.install': 'install skills',
  'skill.write': 'manage skills',
  'skill.read': 'view skills',
  'workflow.write': 'orchestrate workflows',
  'memory.read': 'read memory',
  'memory.write': 'write memory',
  'message.send': 'send messages',
  'message.ask': 'ask the user a question',
  'media.generate': 'generate media',
  'media.read': 'analyse media',
  'knowledge.read': 'search the knowledge base',
  'knowledge.write': 'index the knowledge base',
  'session.read': 'search past sessions',
  'task.write': 'manage tasks',
  'agent.read': 'list agents',
  'agent.dispatch': 'route to agents',
  'mcp.call': 'call an MCP tool',
} as const;

export type Capability = keyof typeof CAPABILITIES;

export function isCapability(value: string): value is Capability {
  return Object.hasOwn(CAPABILITIES, value);
}
