using System.Globalization;
using System.IO.Compression;
using System.Text.RegularExpressions;

namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// Reads the `perf script` text the recorder stores (Recorder/Kernel/PerfSession.PerfScriptArguments: --ns,
/// mmap, switch and lost records, fields comm,pid,tid,time,event,trace,ip,sym,dso) into a <see cref="KernelTrace"/>.
/// An event is a header line, then its call stack one frame per line (leaf first), then a blank line; records
/// (PERF_RECORD_*) are single lines. Lines that do not parse are counted, never fatal: a cut-off file keeps
/// everything before the cut.
/// </summary>
public static partial class PerfScriptReader
{
    public static KernelTrace Read(string path, double samplePeriodMs, out int badLines)
    {
        using var file = File.OpenRead(path);
        using var stream = path.EndsWith(".gz", StringComparison.OrdinalIgnoreCase) ? new GZipStream(file, CompressionMode.Decompress) : (Stream)file;
        using var reader = new StreamReader(stream, bufferSize: 1 << 16);
        return Read(reader, samplePeriodMs, out badLines);
    }

    public static KernelTrace Read(TextReader reader, double samplePeriodMs, out int badLines)
    {
        var state = new ParseState(new KernelTrace { SamplePeriodMs = samplePeriodMs });
        try
        {
            while (reader.ReadLine() is { } line) state.Line(line);
        }
        catch (InvalidDataException) { state.BadLines++; } // gzip cut short: keep what was read
        catch (EndOfStreamException) { state.BadLines++; }
        state.EndEvent();
        badLines = state.BadLines;
        return state.Trace;
    }

    [GeneratedRegex(@"^\s*(?<comm>.*?)\s+(?<pid>-?\d+)/(?<tid>-?\d+)\s+(?<sec>\d+)\.(?<frac>\d+):\s*(?<rest>.*)$", RegexOptions.CultureInvariant)]
    private static partial Regex HeaderRegex();

    [GeneratedRegex(@"\[0x(?<start>[0-9a-f]+)\(0x(?<len>[0-9a-f]+)\) @ (?:0x)?(?<off>[0-9a-f]+)[^\]]*\]: (?<prot>\S+) (?<file>.*)$", RegexOptions.CultureInvariant)]
    private static partial Regex MmapRegex();

    private enum Pending { None, Sample, SwitchOut, Waking }

    private sealed class ParseState(KernelTrace trace)
    {
        public KernelTrace Trace { get; } = trace;
        public int BadLines;
        private readonly ExecutableMaps _maps = new();
        private readonly Dictionary<(ulong, string), int> _frameIds = [];
        private readonly Dictionary<int[], int> _stackIds = new(IntArrayComparer.Instance);
        private readonly Dictionary<string, string> _strings = new(StringComparer.Ordinal);
        private readonly List<int> _frames = new(128);
        private Pending _pending;
        private long _time;
        private int _tid;
        private char _state;
        private int _other;

        public void Line(string line)
        {
            if (line.Length == 0) { EndEvent(); return; }
            if (line[0] == '\t' || (line[0] == ' ' && _pending != Pending.None && IsFrameLine(line)))
            {
                if (_pending != Pending.None) Frame(line);
                return;
            }
            EndEvent();
            Header(line);
        }

        /// <summary>Frame lines are indented hex addresses; headers start with the (right-aligned) thread name.</summary>
        private static bool IsFrameLine(string line)
        {
            var t = line.AsSpan().TrimStart();
            var space = t.IndexOf(' ');
            return space > 0 && ulong.TryParse(t[..space], NumberStyles.HexNumber, CultureInfo.InvariantCulture, out _) && t[^1] == ')';
        }

        private void Header(string line)
        {
            var m = HeaderRegex().Match(line);
            if (!m.Success) { BadLines++; return; }
            var pid = int.Parse(m.Groups["pid"].ValueSpan, CultureInfo.InvariantCulture);
            var tid = int.Parse(m.Groups["tid"].ValueSpan, CultureInfo.InvariantCulture);
            var time = TimeNs(m.Groups["sec"].ValueSpan, m.Groups["frac"].ValueSpan);
            var rest = m.Groups["rest"].Value;
            if (rest.StartsWith("PERF_RECORD_", StringComparison.Ordinal)) { Record(rest, time, tid); return; }
            if (tid > 0) Trace.ThreadNames[tid] = Intern(m.Groups["comm"].Value);
            _time = time;
            _tid = tid;
            if (rest.StartsWith("cpu-clock", StringComparison.Ordinal))
            {
                if (Trace.ProcessId == 0 && pid > 0) Trace.ProcessId = pid;
                _pending = Pending.Sample;
            }
            else if (rest.StartsWith("sched:sched_switch:", StringComparison.Ordinal))
            {
                _state = Field(rest, " prev_state=") is { Length: > 0 } s ? s[0] : '?';
                _other = int.TryParse(Field(rest, " next_pid="), CultureInfo.InvariantCulture, out var next) ? next : 0;
                _pending = Pending.SwitchOut;
            }
            else if (rest.StartsWith("sched:sched_waking:", StringComparison.Ordinal))
            {
                _other = int.TryParse(Field(rest, " pid="), CultureInfo.InvariantCulture, out var target) ? target : 0;
                _pending = Pending.Waking;
            }
            else _pending = Pending.None; // an event this reader does not use
        }

        private void Record(string rest, long time, int tid)
        {
            if (rest.StartsWith("PERF_RECORD_MMAP", StringComparison.Ordinal))
            {
                var m = MmapRegex().Match(rest);
                if (!m.Success) { BadLines++; return; }
                if (!m.Groups["prot"].ValueSpan.Contains('x')) return;
                _maps.Add(Intern(m.Groups["file"].Value), Hex(m.Groups["start"].ValueSpan), Hex(m.Groups["len"].ValueSpan), Hex(m.Groups["off"].ValueSpan));
            }
            else if (rest.StartsWith("PERF_RECORD_SWITCH IN", StringComparison.Ordinal)) Trace.SwitchIns.Add((time, tid));
            else if (rest.StartsWith("PERF_RECORD_LOST", StringComparison.Ordinal))
            {
                var n = rest.Split(' ', StringSplitOptions.RemoveEmptyEntries).Select(t => long.TryParse(t, CultureInfo.InvariantCulture, out var v) ? v : 0).LastOrDefault();
                Trace.LostEvents += Math.Max(1, n);
            }
        }

        public void EndEvent()
        {
            if (_pending == Pending.None) return;
            var stack = _frames.Count == 0 ? KernelTrace.NoStack : StackId();
            switch (_pending)
            {
                case Pending.Sample: Trace.Samples.Add(new KernelSample(_time, _tid, stack)); break;
                case Pending.SwitchOut: Trace.SwitchOuts.Add(new KernelSwitchOut(_time, _tid, _state, _other, stack)); break;
                case Pending.Waking: Trace.Wakings.Add(new KernelWaking(_time, _tid, _other, stack)); break;
            }
            _pending = Pending.None;
            _frames.Clear();
        }

        private void Frame(string line)
        {
            var t = line.AsSpan().Trim();
            var space = t.IndexOf(' ');
            if (space <= 0 || !ulong.TryParse(t[..space], NumberStyles.HexNumber, CultureInfo.InvariantCulture, out var address)) { BadLines++; return; }
            var rest = t[(space + 1)..];
            var open = DsoStart(rest);
            if (open < 0) { BadLines++; return; }
            var symbol = rest[..open].TrimEnd();
            var dso = rest[(open + 1)..^1];
            var kernel = dso.StartsWith("[kernel", StringComparison.Ordinal) || dso.StartsWith("[bpf", StringComparison.Ordinal);
            var dsoText = Intern(dso.ToString());
            // perf prints a frame in a file it cannot name as an offset into the file: turn it back into the
            // address that ran, which the EventPipe trace's method load and rundown events name.
            if (!kernel && symbol.SequenceEqual("[unknown]") && dsoText != "[unknown]" && _maps.Absolute(dsoText, address) is { } absolute) address = absolute;
            var key = (address, dsoText);
            if (!_frameIds.TryGetValue(key, out var id))
            {
                id = Trace.Frames.Count;
                Trace.Frames.Add(new RawFrame(address, Intern(symbol.ToString()), dsoText, kernel));
                _frameIds[key] = id;
            }
            _frames.Add(id);
        }

        /// <summary>The '(' that opens the trailing "(dso)", which may itself hold parentheses: "(/memfd:doublemapper (deleted))".</summary>
        private static int DsoStart(ReadOnlySpan<char> s)
        {
            if (s.Length == 0 || s[^1] != ')') return -1;
            var depth = 0;
            for (var i = s.Length - 1; i >= 0; i--)
            {
                if (s[i] == ')') depth++;
                else if (s[i] == '(' && --depth == 0) return i;
            }
            return -1;
        }

        private int StackId()
        {
            var frames = _frames.ToArray();
            if (_stackIds.TryGetValue(frames, out var id)) return id;
            id = Trace.Stacks.Count;
            Trace.Stacks.Add(frames);
            _stackIds[frames] = id;
            return id;
        }

        private string Intern(string s)
        {
            if (_strings.TryGetValue(s, out var interned)) return interned;
            _strings[s] = s;
            return s;
        }

        private static string Field(string text, string name)
        {
            var i = text.IndexOf(name, StringComparison.Ordinal);
            if (i < 0) return "";
            var start = i + name.Length;
            var end = text.IndexOf(' ', start);
            return end < 0 ? text[start..] : text[start..end];
        }

        private static ulong Hex(ReadOnlySpan<char> s) => ulong.Parse(s, NumberStyles.HexNumber, CultureInfo.InvariantCulture);

        private static long TimeNs(ReadOnlySpan<char> seconds, ReadOnlySpan<char> fraction)
        {
            var ns = long.Parse(fraction, CultureInfo.InvariantCulture);
            for (var i = fraction.Length; i < 9; i++) ns *= 10;
            for (var i = fraction.Length; i > 9; i--) ns /= 10;
            return long.Parse(seconds, CultureInfo.InvariantCulture) * 1_000_000_000 + ns;
        }
    }

    private sealed class IntArrayComparer : IEqualityComparer<int[]>
    {
        public static readonly IntArrayComparer Instance = new();
        public bool Equals(int[]? x, int[]? y) => x.AsSpan().SequenceEqual(y);
        public int GetHashCode(int[] a)
        {
            var h = new HashCode();
            h.AddBytes(System.Runtime.InteropServices.MemoryMarshal.AsBytes(a.AsSpan()));
            return h.ToHashCode();
        }
    }
}
