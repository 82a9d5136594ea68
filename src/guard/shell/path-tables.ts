/** Path tables of the shell guard: which places and files the rules protect. */

/** Top-level directories whose recursive deletion breaks the system (`/lib*` by pattern). */
export const SYSTEM_TOP_DIRS: ReadonlySet<string> = new Set([
  'bin', 'boot', 'dev', 'etc', 'home', 'media', 'mnt', 'opt', 'proc', 'root', 'run', 'sbin', 'srv', 'sys', 'usr', 'var',
  'snap', 'nix', 'lost+found', 'System', 'Library', 'Applications', 'Users', 'Volumes', 'private', 'cores',
]);
export const SYSTEM_TOP_PATTERN = /^lib/;

/** Deeper directories that count as system directories themselves. */
export const SYSTEM_SUBDIRS: ReadonlySet<string> = new Set([
  '/usr/bin', '/usr/sbin', '/usr/lib', '/usr/lib32', '/usr/lib64', '/usr/libexec', '/usr/local', '/usr/local/bin', '/usr/local/sbin',
  '/usr/local/lib', '/usr/share', '/usr/include', '/usr/src', '/var/lib', '/etc/ssh', '/etc/ssl', '/etc/pam.d', '/etc/systemd', '/etc/sudoers.d', '/nix/store',
  '/private/etc', '/private/var', '/System/Library', '/Library/Application Support',
]);

/** Directories whose children are users' home directories. */
export const HOME_PARENTS: ReadonlySet<string> = new Set(['home', 'Users']);

/**
 * Device nodes a write cannot harm: the data sinks and sources, terminals, the process's own streams.
 * Every other /dev path counts as a disk or raw memory: device names vary (LVM's /dev/VG/LV, zram,
 * drbd, pmem, a watchdog that reboots on write), so the safe ones are listed rather than the disks.
 */
export const HARMLESS_DEVICE = /^\/dev\/(null|zero|full|u?random|tty(S|USB|ACM)?\d*|pts\/.*|ptmx|console|stdin|stdout|stderr|fd\/.*|shm(\/.*)?|mqueue(\/.*)?|log|kmsg|tcp\/.*|udp\/.*)$/;

/** Files whose contents are password hashes or root's keys. */
export const SECRET_FILES: readonly string[] = [
  '/etc/shadow', '/etc/shadow-', '/etc/gshadow', '/etc/gshadow-', '/etc/master.passwd', '/etc/security/opasswd',
  // the host's SSH private keys (anyone holding one can pose as the host)
  '/etc/ssh/ssh_host_rsa_key', '/etc/ssh/ssh_host_ecdsa_key', '/etc/ssh/ssh_host_ed25519_key', '/etc/ssh/ssh_host_dsa_key',
  // the unit's EnvironmentFile: the daemon's database URL, model key and notify tokens
  '/etc/echo-agent/env',
  // the host's Kerberos keys; a Kubernetes control plane's kubeconfigs (cluster-admin and its components' client keys), k3s's
  '/etc/krb5.keytab', '/etc/kubernetes/admin.conf', '/etc/kubernetes/super-admin.conf', '/etc/kubernetes/kubelet.conf',
  '/etc/kubernetes/controller-manager.conf', '/etc/kubernetes/scheduler.conf', '/etc/rancher/k3s/k3s.yaml',
];
/** Root's SSH keys; the TLS private keys of the host's services. */
export const SECRET_DIRS: readonly string[] = [
  '/root/.ssh', '/etc/ssl/private',
  // a container's mounted secrets: Docker's and Kubernetes' (the pod's service account token is the cluster's API key);
  // /var/run is a link to /run, read as it (paths.ts), so that /var itself does not hold them
  '/run/secrets',
  // the cluster's CA and service-account signing keys
  '/etc/kubernetes/pki',
];
/**
 * A process's environment, command line and memory (`/proc/<pid>[/task/<tid>]/<name>`): echo-agent's own, the parent
 * of the exec tool's shell, holds the configuration's secrets (as path.proc_secret refuses them to the file tools).
 */
export const PROC_SECRET_NAMES: readonly string[] = ['environ', 'cmdline', 'mem'];
/**
 * `/proc/<pid>/fd/<n>` opens what another process holds open (the daemon's database socket, its config file, deleted
 * files); the reader's own (`self`, `thread-self`) are its stdio and pipes, as /dev/fd is (path.proc_escape for the file tools).
 */
export const PROC_FD_DIR = 'fd';
export const PROC_OWN = /^(self|thread-self)$/;
/** What a process directory under /proc may be called: a pid, or the reader's own (`self`, `thread-self`). */
export const PROC_PID = /^(\d+|self|thread-self)$/;
/** Names a glob or an unknown word (`/proc/*`, `/proc/$PPID`) is tried against: it may name a process when it matches one. */
export const PROC_PID_SAMPLES: readonly string[] = ['1', '4242', 'self', 'thread-self'];
/**
 * Files that hold nothing but credentials, wherever they are (home-relative suffixes): reading one hands
 * them over, like a private key. Files others read routinely (`.netrc` for curl, `.env`, configs) are not here;
 * see LOGIN_FILES for those.
 */
export const CREDENTIAL_STORES: readonly string[] = [
  '.aws/credentials', '.git-credentials', '.pgpass', '.gem/credentials',
  // registry logins, cluster keys and tokens, CLI logins: what they hold beside the credential is not worth handing it over
  '.docker/config.json', '.config/containers/auth.json', '.kube/config', '.config/gh/hosts.yml',
  '.config/gcloud/credentials.db', '.config/gcloud/access_tokens.db', '.config/gcloud/application_default_credentials.json',
  '.azure/accessTokens.json', '.azure/msal_token_cache.json', '.vault-token', '.terraform.d/credentials.tfrc.json',
  '.cargo/credentials.toml', '.cargo/credentials', '.gnupg/secring.gpg',
  // rclone's remotes are their access keys and OAuth tokens
  '.config/rclone/rclone.conf',
];
/** File name endings of files holding nothing but keys, wherever they are (a Kerberos keytab). */
export const CREDENTIAL_STORE_ENDINGS: readonly string[] = ['.keytab'];
/**
 * Settings files that mostly hold a login (a registry token, a host's password) beside some settings: the programs
 * that use them (curl, wget, npm, pip, twine) read them by themselves, untouched by the guard; a command or file tool
 * reading one out asks a person (shell.credential.read, path.credential_read), so no unattended run can.
 */
export const LOGIN_FILES: readonly string[] = [
  '.netrc', '.npmrc', '.pypirc',
  // MySQL's client password, Maven's server passwords (settings.xml is matched with its directory: the name alone is common)
  '.my.cnf', '.m2/settings.xml',
];
/**
 * dotenv files (`.env`, `.env.production`): the project's API keys and database passwords beside its settings; the
 * templates meant to be committed (`.env.example`) hold none. Read by name: they ask like LOGIN_FILES.
 */
export const DOTENV = /^\.env(?:\.(?!(?:example|sample|template|dist|defaults)$)[^/]+)?$/i;
/**
 * Private keys named as their tools name them, wherever they lie (a key copied into a project, `keys/id_rsa`): OpenSSH's
 * defaults (PRIVATE_KEY_NAMES) are refused like one in `.ssh`; PuTTY's `.ppk`, certbot's `privkey*.pem` and cfssl's
 * `*-key.pem` ask (they are also test fixtures). `*.key` and `*.pem` alone are not: Keynote files, certificates.
 */
export const PRIVATE_KEY_LIKE = /^(?!.*pub(?:lic)?[-_.])(?:.+\.ppk|privkey\d*\.pem|.+[-_]key\.pem|private[-_]?key\.pem)$/i;
/** Directories every file of which is a credential (GnuPG's private keys, one file per key). */
export const CREDENTIAL_STORE_DIRS: readonly string[] = ['.gnupg/private-keys-v1.d'];
/** Directories holding private keys, wherever they are. */
export const KEY_DIR = '.ssh';
/** Private key names inside any `.ssh` directory (the home may be /root; `.pub` files are public). */
export const PRIVATE_KEY_NAMES: readonly string[] = ['id_rsa', 'id_ed25519', 'id_ecdsa', 'id_dsa', 'id_ed25519_sk', 'id_ecdsa_sk'];
/** Files of a `.ssh` directory that are no private key (keys may have any name: `~/.ssh/deploy_key`, `github.pem`). */
export const SSH_PUBLIC_FILES = /^(?:.*\.pub|config|known_hosts2?(?:\.old)?|authorized_keys2?|allowed_signers|environment|rc)$/;

/** Credential and start-up files whose basename alone identifies them. */
export const CREDENTIAL_BASENAMES: ReadonlySet<string> = new Set([
  '.env', '.netrc', '_netrc', '.pgpass', '.npmrc', '.pypirc', '.git-credentials', '.dockercfg', '.my.cnf', 'authorized_keys', 'authorized_keys2',
  '.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile', '.zshrc', '.zprofile', '.zshenv', '.zlogin', '.kshrc', '.cshrc', '.tcshrc',
  // git runs what these name (core.fsmonitor, core.pager, aliases) on an ordinary `git status`
  '.gitconfig',
  // programs' start-up files that run commands when the program starts (Debian's .bashrc sources .bash_aliases; tmux's
  // run-shell, screen's exec, lesskey's LESSOPEN, gdb's shell, vim's !, psql's \!, sqlite's .system, pdb's !, R and irb
  // code) or send files (curl's upload-file) on its next ordinary run
  '.bash_aliases', '.tmux.conf', '.screenrc', '.lesskey', '.gdbinit', '.lldbinit', '.vimrc', '_vimrc', '.gvimrc', '.exrc', '.psqlrc', '.sqliterc', '.pdbrc',
  '.Rprofile', '.irbrc', '.curlrc', '.wgetrc',
  // more login and session scripts: X's, zsh's and mksh's, PowerShell's profile; python's usercustomize (imported at start)
  '.xprofile', '.xinitrc', '.xsession', '.xsessionrc', '.zlogout', '.mkshrc', 'Microsoft.PowerShell_profile.ps1', 'profile.ps1', 'usercustomize.py', 'sitecustomize.py',
  // a gitfile (`gitdir: DIR`) makes DIR the repository: its config and hooks run on the next `git status` there
  '.git',
  // pam_env reads it at every login (LD_PRELOAD for the session); direnv runs .envrc on `cd` (once allowed, it asks again
  // after a change, but a person allowing it trusts its author); pip's and conda's settings pick the package index
  '.pam_environment', '.envrc', 'pip.conf', '.condarc',
]);
/** Basename prefixes: `.env.local`, `id_rsa.pub`, … */
export const CREDENTIAL_PREFIXES: readonly string[] = ['.env.', 'id_rsa', 'id_ed25519', 'id_ecdsa', 'id_dsa'];
/** Path suffixes (home-relative or absolute). */
export const CREDENTIAL_SUFFIXES: readonly string[] = [
  '.aws/credentials', '.aws/config', '.docker/config.json', '.kube/config', '.config/gh/hosts.yml', '.config/fish/config.fish',
  '.config/git/config', '.git/config',
  // start-up files at their XDG places (see CREDENTIAL_BASENAMES)
  '.config/tmux/tmux.conf', '.config/lesskey', '.config/gdb/gdbinit', '.vim/vimrc', '.config/nvim/init.vim', '.config/nvim/init.lua',
  '.gradle/init.gradle', '.gradle/init.gradle.kts', '.config/powershell/profile.ps1',
  // conda's user settings at its XDG place; VS Code runs a folder's tasks with `runOn: folderOpen` when the folder is
  // opened, and its settings name programs it starts (terminal profiles, git.path, interpreters)
  '.config/conda/condarc', '.vscode/tasks.json', '.vscode/settings.json',
];
/**
 * git's hook names (githooks(5)): a file of that name in a `hooks` directory runs when git does what it is named after,
 * if the directory is a repository's (a gitfile may point anywhere) or core.hooksPath names it.
 */
export const GIT_HOOK_NAMES: ReadonlySet<string> = new Set([
  'applypatch-msg', 'pre-applypatch', 'post-applypatch', 'pre-commit', 'pre-merge-commit', 'prepare-commit-msg', 'commit-msg', 'post-commit',
  'pre-rebase', 'post-checkout', 'post-merge', 'pre-push', 'pre-receive', 'update', 'proc-receive', 'post-receive', 'post-update',
  'reference-transaction', 'push-to-checkout', 'pre-auto-gc', 'post-rewrite', 'sendemail-validate', 'fsmonitor-watchman', 'p4-changelist',
  'p4-prepare-changelist', 'p4-post-changelist', 'p4-pre-submit', 'post-index-change',
]);
export const GIT_HOOKS_DIR = 'hooks';
/** Names of a git directory's configuration files, judged by their text wherever they are (see git-config-text.ts). */
export const GIT_CONFIG_NAMES: ReadonlySet<string> = new Set(['config', 'config.worktree']);
/**
 * Any file below these paths: a repository's hooks run on commit, checkout, merge, push; kitty's configuration, sessions and
 * kittens, and IPython's start-up scripts, run when those start; a user's systemd units and desktop autostart entries run
 * outside this command line (as a crontab entry does).
 */
export const CODE_DIR_PATHS: readonly string[] = [
  '.git/hooks', '.config/kitty', '.ipython/profile_default/startup', '.config/systemd/user', '.config/autostart',
  // fish sources every conf.d file at start; gradle runs every init script on each build
  '.config/fish/conf.d', '.gradle/init.d',
];
/** Any file inside these directory names. */
export const CREDENTIAL_DIRS: ReadonlySet<string> = new Set(['.ssh', '.gnupg']);
/** System files that grant logins, privileges, run at every shell start, or hold commands the system runs later. */
export const SYSTEM_AUTH_FILES: ReadonlySet<string> = new Set([
  '/etc/passwd', '/etc/shadow', '/etc/group', '/etc/gshadow', '/etc/sudoers', '/etc/profile', '/etc/bash.bashrc', '/etc/zshrc', '/etc/zsh/zshrc', '/etc/environment',
  '/etc/tmux.conf', '/etc/screenrc',
  // commands the system runs later, as root (a crontab, rc.local at boot)
  '/etc/crontab', '/etc/rc.local', '/etc/anacrontab',
  // a library loaded into every program started on the machine; the dynamic loader's search path (a library put first)
  '/etc/ld.so.preload', '/etc/ld.so.conf',
  // pam_env's system-wide variables; pip's and conda's system settings (the package index every install uses)
  '/etc/security/pam_env.conf', '/etc/pip.conf', '/etc/xdg/pip/pip.conf', '/etc/conda/condarc', '/etc/conda/.condarc',
]);
export const SYSTEM_AUTH_DIRS: readonly string[] = [
  '/etc/sudoers.d', '/etc/profile.d', '/etc/cron.d', '/etc/cron.hourly', '/etc/cron.daily', '/etc/cron.weekly', '/etc/cron.monthly', '/var/spool/cron',
  '/etc/systemd/system', '/etc/systemd/user', '/etc/init.d', '/etc/xdg/autostart',
  // the loader's search path and PAM's modules for each login service; programs found on PATH before /usr/bin (a `git`
  // there runs instead of git)
  '/etc/ld.so.conf.d', '/etc/pam.d', '/usr/local/bin', '/usr/local/sbin',
];

/**
 * Files keeping the commands people and programs ran (shells', and REPLs' that run commands): emptying or deleting one,
 * or turning history off, hides what was done (shell.history.erase). Basenames, and home-relative paths.
 */
export const HISTORY_FILES: readonly string[] = [
  '.bash_history', '.zsh_history', '.zhistory', '.histfile', '.sh_history', '.ash_history', '.local/share/fish/fish_history',
  '.python_history', '.node_repl_history', '.psql_history', '.mysql_history', '.sqlite_history', '.rediscli_history', '.irb_history',
];
