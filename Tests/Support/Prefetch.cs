using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;

namespace EtwSerializerProfiler.Tests.Support;

/// <summary>
/// The whole suite's slow set-ups (the native esp, the packed tool, the .NET 8 benchmark: about 6 minutes of CPU on a
/// fresh clone) start when the test run begins, in the background, at the lowest CPU priority: they use the CPU the
/// end-to-end tests leave idle. A test that needs one waits inside <see cref="Hurry"/>: while anyone waits, the set-ups
/// run at normal priority. On only with ESP_TEST_PREFETCH=1 (scripts/test.sh sets it) and as root (only
/// root may raise a priority again); otherwise each set-up runs when its first test needs it, as before.
/// </summary>
public static class Prefetch
{
    public const string Variable = "ESP_TEST_PREFETCH";
    private const int Lowest = 19;
    private static int s_waiters;
    [ThreadStatic] private static bool t_prefetching;

    /// <summary>Whether the set-ups run in the background in this test run.</summary>
    public static bool Active { get; } = Environment.GetEnvironmentVariable(Variable) == "1" && !FastRun.Active
        && OperatingSystem.IsLinux() && Environment.UserName == "root";

    [ModuleInitializer]
    internal static void Start()
    {
        if (!Active) return;
        new Thread(Run) { IsBackground = true, Name = "prefetch" }.Start();
    }

    private static void Run()
    {
        t_prefetching = true;
        // Each step is its own Once: a test that asks first runs it itself, and a failed step runs again for its test.
        foreach (var step in Enum.GetValues<SetUp>())
        {
            // The thread's own priority: the processes it starts inherit it, and their children theirs.
            setpriority(PrioProcess, 0, Volatile.Read(ref s_waiters) > 0 ? 0 : Lowest);
            try { Make(step); } catch (Exception) { } // the test that needs it runs it again and fails with the reason
        }
    }

    private static void Make(SetUp step)
    {
        switch (step)
        {
            case SetUp.NativeEsp: _ = NativeEsp.Path; break;
            case SetUp.PackedTool: _ = PackedTool.Packages; break;
            case SetUp.Net8Benchmark: PublishNet8(); break;
        }
    }

    private static readonly Once<string> s_net8 = new(() => EtwSerializerProfiler.Recorder.Launch.RuntimePublish.Executable(
        EtwSerializerProfiler.Recorder.Launch.BenchmarkRuntime.Parse("8.0"), new Progress<string>(), CancellationToken.None));

    private static void PublishNet8() => _ = s_net8.Value;

    /// <summary>
    /// The benchmark published for .NET 8 where `esp record --runtime 8.0` looks for it (Benchmark/bin/runtimes/): a
    /// recording then starts at once instead of publishing first (about 100 s on a fresh clone).
    /// </summary>
    public static void Net8Benchmark()
    {
        FastRun.RefuseSlowWork("publishing the benchmark for .NET 8");
        using (Hurry()) PublishNet8();
    }

    /// <summary>
    /// Wrap a wait for a set-up: until disposed, every thread of this process tree at the lowest priority (the
    /// background thread and the builds it started) runs at normal priority, and so does the next step it starts.
    /// </summary>
    public static IDisposable Hurry()
    {
        if (!Active || t_prefetching) return new Waiter(false);
        Interlocked.Increment(ref s_waiters);
        foreach (var pid in Descendants(Environment.ProcessId))
            foreach (var task in Tasks(pid))
                if (Nice(pid, task) == Lowest) setpriority(PrioProcess, task, 0);
        return new Waiter(true);
    }

    private sealed class Waiter(bool counted) : IDisposable
    {
        private bool _counted = counted;

        public void Dispose()
        {
            if (_counted) Interlocked.Decrement(ref s_waiters);
            _counted = false;
        }
    }

    private static IEnumerable<int> Descendants(int root)
    {
        var children = new Dictionary<int, List<int>>();
        foreach (var dir in Directory.EnumerateDirectories("/proc"))
            if (int.TryParse(Path.GetFileName(dir), out var pid) && Stat(pid, pid) is { } stat && int.TryParse(stat[1], out var parent))
                (children.TryGetValue(parent, out var list) ? list : children[parent] = []).Add(pid);
        var queue = new Queue<int>([root]);
        while (queue.TryDequeue(out var pid))
        {
            yield return pid;
            foreach (var child in children.GetValueOrDefault(pid) ?? []) queue.Enqueue(child);
        }
    }

    private static IEnumerable<int> Tasks(int pid)
    {
        try { return [.. Directory.EnumerateDirectories($"/proc/{pid}/task").Select(d => int.TryParse(Path.GetFileName(d), out var t) ? t : 0).Where(t => t > 0)]; }
        catch (IOException) { return []; } // the process ended
        catch (UnauthorizedAccessException) { return []; }
    }

    private static int? Nice(int pid, int task) => Stat(pid, task) is { } stat && int.TryParse(stat[16], out var nice) ? nice : null;

    /// <summary>/proc/PID/task/TID/stat after the command's closing parenthesis: [0] state, [1] ppid, ... [16] nice.</summary>
    private static string[]? Stat(int pid, int task)
    {
        try
        {
            var text = File.ReadAllText($"/proc/{pid}/task/{task}/stat");
            return text[(text.LastIndexOf(')') + 2)..].Split(' ');
        }
        catch (IOException) { return null; } // the process or thread ended
        catch (UnauthorizedAccessException) { return null; }
    }

    private const int PrioProcess = 0;

    [DllImport("libc", SetLastError = true)]
    private static extern int setpriority(int which, int who, int prio);
}

/// <summary>A value made once, by its first caller while the others wait; a failure is not kept, the next caller tries again.</summary>
public sealed class Once<T>(Func<T> make)
{
    private readonly object _gate = new();
    private T? _value;
    private bool _made;

    public bool IsMade => Volatile.Read(ref _made);

    public T Value
    {
        get
        {
            lock (_gate)
            {
                if (_made) return _value!;
                _value = make();
                Volatile.Write(ref _made, true);
                return _value;
            }
        }
    }

    /// <summary>The value, raising the background set-ups to normal priority while it waits (<see cref="Prefetch.Hurry"/>).</summary>
    public T Hurried()
    {
        if (IsMade) return _value!;
        using (Prefetch.Hurry()) return Value;
    }
}
