using System.Diagnostics;
using System.Text.Json;
using EtwSerializerProfiler.Common;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Reports;

/// <summary>
/// The exports' own viewers, as npm packages that scripts/test-setup.sh installs once into $ESP_VIEWERS (default
/// ~/.cache/esp-viewers): speedscope, opened in headless Chromium (<see cref="Chromium.SpeedscopeLabels"/>), and the
/// Firefox Profiler's own loading and call tree code, run under node by its profiler-cli (<see cref="Session"/>).
/// </summary>
public static class Viewers
{
    public static string Folder => Environment.GetEnvironmentVariable("ESP_VIEWERS") is { Length: > 0 } dir ? dir
        : Path.Combine(Environment.GetEnvironmentVariable("XDG_CACHE_HOME") is { Length: > 0 } cache ? cache
            : Path.Combine(Environment.GetFolderPath(Environment.SpecialFolder.UserProfile), ".cache"), "esp-viewers");

    /// <summary>An installed package's folder; fails with the command that installs it when it is missing.</summary>
    public static string Require(string package)
    {
        var dir = Path.Combine(Folder, "node_modules", package);
        if (File.Exists(Path.Combine(dir, "package.json"))) return dir;
        var reason = $"{package} is not installed in {Folder} (the export tests open the exports in it): run scripts/test-setup.sh";
        Console.Error.WriteLine("SKIPPED VIEWER CHECK: " + reason);
        Assert.Fail(reason);
        return dir;
    }

    private static string Node => File.Exists("/usr/bin/node") ? "/usr/bin/node" : "node";

    /// <summary>
    /// A Firefox Profiler profile loaded by profiler-cli: its daemon started here (the CLI's own start waits only half
    /// a second, too little on a busy machine), asked with --json, stopped at the end.
    /// </summary>
    public sealed class Session : IDisposable
    {
        private readonly string _cli = Path.Combine(Require("@firefox-devtools/profiler-cli"), "dist", "profiler-cli.js");
        private readonly string _dir = Repo.NewTempDir("profiler-cli");
        private readonly string _id = "esp" + Environment.ProcessId;
        private readonly Process _daemon;
        private Dictionary<string, string> Env => new() { ["PROFILER_CLI_SESSION_DIR"] = _dir, ["PROFILER_CLI_NO_SYMBOLICATE"] = "1" };

        public Session(string profile)
        {
            FastRun.RefuseSlowWork("starting profiler-cli");
            var start = new ProcessStartInfo(Node) { RedirectStandardOutput = true, RedirectStandardError = true };
            foreach (var a in new[] { _cli, "--daemon", Path.GetFullPath(profile), "--session", _id }) start.ArgumentList.Add(a);
            foreach (var (k, v) in Env) start.Environment[k] = v;
            _daemon = Process.Start(start)!;
            _daemon.BeginOutputReadLine();
            _daemon.BeginErrorReadLine();
            try
            {
                // The daemon writes its session file once it listens; a client asking before that finds no daemon
                // and deletes the session's files, socket included, so nothing is asked until the file is there.
                var clock = Stopwatch.StartNew();
                while (!File.Exists(Path.Combine(_dir, _id + ".json")) || Raw("status").ExitCode != 0)
                {
                    Assert.False(_daemon.HasExited, $"profiler-cli's daemon exited loading {profile}");
                    Assert.True(clock.Elapsed < TimeSpan.FromSeconds(60), $"profiler-cli did not load {profile} in 60 s: {Log()}");
                    Thread.Sleep(100);
                }
            }
            catch
            {
                Dispose();
                throw;
            }
        }

        private string Log() => Path.Combine(_dir, _id + ".log") is var log && File.Exists(log) ? File.ReadAllText(log) : "no log";

        private ProcessRunner.Result Raw(params string[] args) =>
            ProcessRunner.Run(Node, [_cli, .. args, "--session", _id], TimeSpan.FromMinutes(1), environment: Env);

        /// <summary>A command's output; it must succeed.</summary>
        public string Text(params string[] args)
        {
            var r = Raw(args);
            Assert.True(r.ExitCode == 0, $"profiler-cli {string.Join(' ', args)} exited {r.ExitCode}: {r.StdErr}{r.StdOut}");
            return r.StdOut;
        }

        /// <summary>A command's --json answer (its text before the JSON, such as the status line, skipped).</summary>
        public JsonElement Json(params string[] args)
        {
            var text = Text([.. args, "--json"]);
            return JsonDocument.Parse(text[text.IndexOf('{')..]).RootElement.Clone();
        }

        public void Dispose()
        {
            Raw("stop");
            if (!_daemon.HasExited && !_daemon.WaitForExit(5000)) _daemon.Kill(entireProcessTree: true);
            _daemon.Dispose();
            FileCleanup.TryDeleteDirectory(_dir);
        }
    }
}
