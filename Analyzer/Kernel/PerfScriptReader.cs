using System.Globalization;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using System.Text.RegularExpressions;
using EtwSerializerProfiler.Common;

namespace EtwSerializerProfiler.Analyzer.Kernel;

/// <summary>
/// Reads the `perf script` text the recorder stores (<see cref="PerfRecording.ScriptArguments"/>: --ns, mmap, switch
/// and lost records, fields comm,pid,tid,time,event,trace,ip,sym,dso) into a <see cref="KernelTrace"/>. An event is a
/// header line, then its call stack one frame per line (leaf first), then a blank line; records (PERF_RECORD_*) are
/// single lines. Lines that do not parse are counted, never fatal: a cut-off file keeps everything before the cut.
/// </summary>
/// <remarks>
/// Speed: a kernel session's text is millions of lines, nearly all of them frames that repeat. The text is read as
/// UTF-8 bytes, never decoded as a whole (<see cref="Utf8LineReader"/>: decoding alone cost as much as the rest of
/// the parse); a frame line already seen is one hash lookup of its bytes; names become strings only the first time
/// they are seen, and a stack is looked up by its frame ids without copying them; so a line already seen allocates
/// nothing. Blanks are ASCII blanks (perf pads with spaces and tabs).
/// </remarks>
internal static partial class PerfScriptReader
{
    /// <param name="switchStacks">
    /// Also keep the stacks of context switches (where a thread stopped) and wake-ups (the waker's): the analysis
    /// reads only their times, threads and states, and skipping their frame lines (two in five of a kernel session's,
    /// measured on a 15-serializer recording) spares that much of the reading and the distinct stacks it would keep;
    /// their events are read either way, with <see cref="KernelTrace.NoStack"/>.
    /// </param>
    public static KernelTrace Read(string path, double samplePeriodMs, out int badLines, bool switchStacks = false)
    {
        using var stream = Input.GzipFile.OpenText(path);
        return Read(stream, samplePeriodMs, out badLines, switchStacks);
    }

    /// <param name="utf8">The text as perf writes it (UTF-8).</param>
    /// <param name="switchStacks">Also keep the stacks of context switches and wake-ups (see the other overload).</param>
    public static KernelTrace Read(Stream utf8, double samplePeriodMs, out int badLines, bool switchStacks = false)
    {
        KernelTrace? whole = null;
        badLines = ReadChunks(utf8, samplePeriodMs, int.MaxValue, chunk => whole = chunk, switchStacks);
        return whole!;
    }

    /// <summary>
    /// The text in chunks of about <paramref name="recordsPerChunk"/> records each (samples, switches, wake-ups), in
    /// file order, each handed to <paramref name="chunk"/> once complete and then left alone by the reader: a chunk
    /// has its own frames and stack tree (ids are the chunk's), so a consumer on another thread can read one while
    /// the next is parsed, and nothing the reader keeps grows with the addresses sampled. The last chunk
    /// holds the session's totals (lost records, process id); every chunk shares the one thread-name table, which the
    /// reader writes until it returns.
    /// </summary>
    /// <returns>The lines that did not parse.</returns>
    /// <param name="reuse">A chunk done with, to read into again (null: a new one).</param>
    public static int ReadChunks(Stream utf8, double samplePeriodMs, int recordsPerChunk, Action<KernelTrace> chunk, bool switchStacks = false, Func<KernelTrace?>? reuse = null)
    {
        var state = new ParseState(samplePeriodMs, switchStacks, recordsPerChunk, chunk, reuse);
        var lines = new Utf8LineReader(utf8);
        try
        {
            while (lines.TryReadLine(out var line)) state.Line(line);
        }
        catch (InvalidDataException) { state.BadLines++; } // gzip damaged or cut short (Input.GzipFile): keep what was read
        catch (EndOfStreamException) { state.BadLines++; }
        state.EndEvent();
        state.HandOver(last: true);
        return state.BadLines;
    }

    [GeneratedRegex(@"\[0x(?<start>[0-9a-f]+)\(0x(?<len>[0-9a-f]+)\) @ (?:0x)?(?<off>[0-9a-f]+)[^\]]*\]: (?<prot>\S+) (?<file>.*)$", RegexOptions.CultureInvariant)]
    private static partial Regex MmapRegex();

    private static readonly byte[] CpuClock = Encoding.UTF8.GetBytes(PerfRecording.CpuClock);
    private static readonly byte[] SchedSwitch = Encoding.UTF8.GetBytes(PerfRecording.SchedSwitch + ":");
    private static readonly byte[] SchedWaking = Encoding.UTF8.GetBytes(PerfRecording.SchedWaking + ":");

    private enum Pending { None, Sample, SwitchOut, Waking }

    private sealed class ParseState
    {
        /// <summary>The chunk being filled.</summary>
        public KernelTrace Trace { get; private set; }
        public int BadLines;
        private readonly int _recordsPerChunk;
        private readonly Action<KernelTrace> _handOver;
        private int _records;
        private readonly ExecutableMaps _maps = new();
        private readonly Dictionary<FrameKey, int> _frameIds = [];
        private readonly Dictionary<byte[], string> _strings = new(ByteArrayComparer.Whole);
        private readonly Dictionary<byte[], string>.AlternateLookup<ReadOnlySpan<byte>> _stringsBySpan;
        /// <summary>
        /// Frame lines already read, to their frame id: a stack's frames repeat in most events, and one lookup of the
        /// line is cheaper than parsing it again. An offset line ("[unknown]" in a file) keeps the generation of its
        /// file's mappings it was translated with, and is translated again once a mapping of that file is added
        /// (perf maps JIT code in /memfd:doublemapper a thousand times a trace; clearing every line then cost a
        /// third of the lines a second parse).
        /// </summary>
        private readonly Dictionary<byte[], KnownLine> _frameByLine = new(ByteArrayComparer.FrameLines);
        private readonly Dictionary<byte[], KnownLine>.AlternateLookup<ReadOnlySpan<byte>> _frameByLineSpan;
        /// <summary>Per mapped file, how many executable mappings of it were added so far.</summary>
        private readonly Dictionary<string, StrongBox<int>> _mappingGenerations = new(StringComparer.Ordinal);
        /// <summary>
        /// The frame lines met last, direct-mapped by hash: a small table in front of <see cref="_frameByLine"/>, which
        /// holds every distinct line and whose lookups missed the processor's caches on most of the millions of lines.
        /// </summary>
        private readonly (byte[]? Line, KnownLine Known)[] _recent = new (byte[]?, KnownLine)[RecentSlots];
        private const int RecentSlots = 1 << 13;
        private readonly List<int> _frames = new(128);
        private readonly bool _switchStacks;
        private Pending _pending;
        /// <summary>Whether the pending event's frame lines are read (a sample's always; a switch's or wake-up's on request).</summary>
        private bool KeepFrames => _pending == Pending.Sample || (_pending != Pending.None && _switchStacks);
        private long _time;
        private int _tid;
        private char _state;
        private int _other;
        private readonly SwitchInCredit _credit = new();

        private readonly Func<KernelTrace?>? _reuse;

        public ParseState(double samplePeriodMs, bool switchStacks, int recordsPerChunk, Action<KernelTrace> handOver, Func<KernelTrace?>? reuse)
        {
            _reuse = reuse;
            Trace = new KernelTrace { SamplePeriodMs = samplePeriodMs };
            _recordsPerChunk = recordsPerChunk;
            _handOver = handOver;
            _switchStacks = switchStacks;
            _stringsBySpan = _strings.GetAlternateLookup<ReadOnlySpan<byte>>();
            _frameByLineSpan = _frameByLine.GetAlternateLookup<ReadOnlySpan<byte>>();
        }

        public void Line(ReadOnlySpan<byte> line)
        {
            if (line.Length == 0) { EndEvent(); return; }
            if (line[0] == (byte)'\t' || (line[0] == (byte)' ' && _pending != Pending.None && IsFrameLine(line)))
            {
                if (KeepFrames) Frame(line);
                return;
            }
            EndEvent();
            Header(line);
        }

        /// <summary>Frame lines are indented hex addresses; headers start with the (right-aligned) thread name.</summary>
        private static bool IsFrameLine(ReadOnlySpan<byte> line)
        {
            var t = Trim(line);
            var space = t.IndexOf((byte)' ');
            return space > 0 && ulong.TryParse(t[..space], NumberStyles.HexNumber, CultureInfo.InvariantCulture, out _) && t[^1] == (byte)')';
        }

        /// <summary>
        /// "comm pid/tid sec.frac: rest", as the regex ^\s*(?&lt;comm&gt;.*?)\s+(?&lt;pid&gt;-?\d+)/(?&lt;tid&gt;-?\d+)\s+(?&lt;sec&gt;\d+)\.(?&lt;frac&gt;\d+):\s*(?&lt;rest&gt;.*)$
        /// matched it (the shortest comm after the leading blanks; the thread name may hold blanks and digits).
        /// </summary>
        private void Header(ReadOnlySpan<byte> line)
        {
            var lead = SkipBlanks(line, 0);
            var commEnd = -1;
            HeaderFields fields = default;
            for (var q = lead; q < line.Length; q++)
                if (IsBlank(line[q]) && HeaderFields.TryMatch(line, SkipBlanks(line, q), out fields)) { commEnd = q; break; }
            // An empty thread name: the regex gives the last leading blank back to \s+.
            if (commEnd < 0 && lead > 0 && HeaderFields.TryMatch(line, lead, out fields)) commEnd = lead;
            if (commEnd < 0) { BadLines++; return; }
            var comm = commEnd > lead ? line[lead..commEnd] : [];
            var pid = int.Parse(line[fields.Pid], CultureInfo.InvariantCulture);
            var tid = int.Parse(line[fields.Tid], CultureInfo.InvariantCulture);
            var time = TimeNs(line[fields.Seconds], line[fields.Fraction]);
            var rest = line[fields.Rest..];
            if (rest.StartsWith("PERF_RECORD_"u8)) { Record(rest, time, tid); return; }
            if (tid > 0) Trace.ThreadNames[tid] = Intern(comm);
            _time = time;
            _tid = tid;
            if (rest.StartsWith(CpuClock))
            {
                if (Trace.ProcessId == 0 && pid > 0) Trace.ProcessId = pid;
                _pending = Pending.Sample;
            }
            else if (rest.StartsWith(SchedSwitch))
            {
                _state = Field(rest, " prev_state="u8) is { Length: > 0 } s && s[0] < 0x80 ? (char)s[0] : '?';
                _other = int.TryParse(Field(rest, " next_pid="u8), CultureInfo.InvariantCulture, out var next) ? next : 0;
                _credit.Picked(time, tid, _other);
                _pending = Pending.SwitchOut;
            }
            else if (rest.StartsWith(SchedWaking))
            {
                _other = int.TryParse(Field(rest, " pid="u8), CultureInfo.InvariantCulture, out var target) ? target : 0;
                _pending = Pending.Waking;
            }
            else _pending = Pending.None; // an event this reader does not use
        }

        private void Record(ReadOnlySpan<byte> rest, long time, int tid)
        {
            if (rest.StartsWith("PERF_RECORD_MMAP"u8))
            {
                var m = MmapRegex().Match(Encoding.UTF8.GetString(rest)); // a few hundred per trace
                if (!m.Success) { BadLines++; return; }
                if (!m.Groups["prot"].ValueSpan.Contains('x')) return;
                var file = m.Groups["file"].Value;
                _maps.Add(file, Hex(m.Groups["start"].ValueSpan), Hex(m.Groups["len"].ValueSpan), Hex(m.Groups["off"].ValueSpan));
                MappingGeneration(file).Value++;
            }
            else if (rest.StartsWith("PERF_RECORD_SWITCH IN"u8))
            {
                Trace.SwitchIns.Add((time, tid));
                Trace.OnCpuFrom.Add((_credit.SwitchedIn(time, tid), tid));
                Counted();
            }
            else if (rest.StartsWith("PERF_RECORD_SWITCH OUT"u8))
            {
                _credit.SwitchedOut(time, tid);
                Trace.SwitchOutRecords.Add((time, tid));
                Counted();
            }
            else if (rest.StartsWith("PERF_RECORD_LOST"u8))
            {
                var n = Encoding.UTF8.GetString(rest).Split(' ', StringSplitOptions.RemoveEmptyEntries).Select(t => long.TryParse(t, CultureInfo.InvariantCulture, out var v) ? v : 0).LastOrDefault();
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
            Counted();
        }

        /// <summary>One more record in the chunk; a full chunk is handed over (between events, never inside one).</summary>
        private void Counted()
        {
            if (++_records >= _recordsPerChunk) HandOver(last: false);
        }

        /// <summary>Hands the chunk over and starts the next: new stacks, frames numbered on, the same thread names.</summary>
        public void HandOver(bool last)
        {
            var done = Trace;
            _records = 0;
            if (!last)
            {
                var next = _reuse?.Invoke();
                next?.Clear();
                Trace = next ?? new KernelTrace { ThreadNames = done.ThreadNames };
                Trace.SamplePeriodMs = done.SamplePeriodMs;
                Trace.ProcessId = done.ProcessId;
                Trace.LostEvents = done.LostEvents;
                // Frame ids are the chunk's own, so the tables of frames and lines start again: they grow with the
                // distinct addresses sampled (each leaf's instruction), which a longer trace keeps finding. Names
                // (strings) and the mappings are the text's and stay.
                _frameIds.Clear();
                _frameByLine.Clear();
                Array.Clear(_recent);
            }
            _handOver(done);
        }

        private void Frame(ReadOnlySpan<byte> line)
        {
            ref var recent = ref _recent[Hash(line, whole: false) & (RecentSlots - 1)];
            if (recent.Line is { } seen && line.SequenceEqual(seen) && recent.Known.Current) { _frames.Add(recent.Known.FrameId); return; }
            if (_frameByLineSpan.TryGetValue(line, out var lineKey, out var known) && known.Current)
            {
                recent = (lineKey, known);
                _frames.Add(known.FrameId);
                return;
            }
            var t = Trim(line);
            var space = t.IndexOf((byte)' ');
            if (space <= 0 || !ulong.TryParse(t[..space], NumberStyles.HexNumber, CultureInfo.InvariantCulture, out var address)) { BadLines++; return; }
            var rest = t[(space + 1)..];
            var open = DsoStart(rest);
            if (open < 0) { BadLines++; return; }
            var symbol = TrimEnd(rest[..open]);
            var dso = rest[(open + 1)..^1];
            var kernel = dso.StartsWith("[kernel"u8) || dso.StartsWith("[bpf"u8);
            var dsoText = Intern(dso);
            // perf prints a frame in a file it cannot name as an offset into the file: turn it back into the
            // address that ran, which the EventPipe trace's method load and rundown events name.
            StrongBox<int>? generation = null;
            if (!kernel && symbol.SequenceEqual("[unknown]"u8) && dsoText != "[unknown]")
            {
                generation = MappingGeneration(dsoText);
                if (_maps.Absolute(dsoText, address) is { } absolute) address = absolute;
            }
            var key = new FrameKey(address, dsoText);
            if (!_frameIds.TryGetValue(key, out var id))
            {
                id = Trace.Frames.Count;
                Trace.Frames.Add(new RawFrame(address, Intern(symbol), dsoText, kernel));
                _frameIds[key] = id;
            }
            _frameByLineSpan[line] = new KnownLine(id, generation, generation?.Value ?? 0);
            _frames.Add(id);
        }

        private StrongBox<int> MappingGeneration(string file)
        {
            if (!_mappingGenerations.TryGetValue(file, out var generation)) _mappingGenerations[file] = generation = new StrongBox<int>();
            return generation;
        }

        /// <summary>
        /// A frame by its address and module, hashed on the address alone: the module is an interned name, and a
        /// (ulong, string) tuple hashed it with the randomized string hash on every new line (1% of the native esp's CPU).
        /// </summary>
        private readonly struct FrameKey(ulong address, string dso) : IEquatable<FrameKey>
        {
            private readonly ulong _address = address;
            private readonly string _dso = dso;
            public bool Equals(FrameKey other) => _address == other._address && string.Equals(_dso, other._dso);
            public override bool Equals(object? obj) => obj is FrameKey other && Equals(other);
            public override int GetHashCode() => (int)(_address ^ (_address >> 32)) * -1640531535;
        }

        /// <summary>A frame line's id, and for an offset line the generation of its file's mappings it was translated with.</summary>
        private readonly record struct KnownLine(int FrameId, StrongBox<int>? File, int Generation)
        {
            public bool Current => File is null || File.Value == Generation;
        }

        /// <summary>The '(' that opens the trailing "(dso)", which may itself hold parentheses: "(/memfd:doublemapper (deleted))".</summary>
        private static int DsoStart(ReadOnlySpan<byte> s)
        {
            if (s.Length == 0 || s[^1] != (byte)')') return -1;
            var depth = 0;
            for (var i = s.Length - 1; i >= 0; i--)
            {
                if (s[i] == (byte)')') depth++;
                else if (s[i] == (byte)'(' && --depth == 0) return i;
            }
            return -1;
        }

        /// <summary>The stack's id (<see cref="Analyzer.Stacks.StackTree{T}"/>: a stack seen before is one lookup, a new one adds the nodes it does not share).</summary>
        private int StackId() => Trace.Stacks.Intern(CollectionsMarshal.AsSpan(_frames));

        private string Intern(ReadOnlySpan<byte> s)
        {
            if (_stringsBySpan.TryGetValue(s, out var interned)) return interned;
            var text = Encoding.UTF8.GetString(s);
            _strings[s.ToArray()] = text;
            return text;
        }

        private static ReadOnlySpan<byte> Field(ReadOnlySpan<byte> text, ReadOnlySpan<byte> name)
        {
            var i = text.IndexOf(name);
            if (i < 0) return [];
            var value = text[(i + name.Length)..];
            var end = value.IndexOf((byte)' ');
            return end < 0 ? value : value[..end];
        }

        private static ulong Hex(ReadOnlySpan<char> s) => ulong.Parse(s, NumberStyles.HexNumber, CultureInfo.InvariantCulture);

        private static long TimeNs(ReadOnlySpan<byte> seconds, ReadOnlySpan<byte> fraction)
        {
            var ns = long.Parse(fraction, CultureInfo.InvariantCulture);
            for (var i = fraction.Length; i < 9; i++) ns *= 10;
            for (var i = fraction.Length; i > 9; i--) ns /= 10;
            return long.Parse(seconds, CultureInfo.InvariantCulture) * 1_000_000_000 + ns;
        }
    }

    /// <summary>The blanks perf pads with (what \s matched in the ASCII text it prints).</summary>
    private static bool IsBlank(byte b) => b is (byte)' ' or (byte)'\t' or 0x0b or 0x0c;

    private static int SkipBlanks(ReadOnlySpan<byte> s, int i)
    {
        while (i < s.Length && IsBlank(s[i])) i++;
        return i;
    }

    private static ReadOnlySpan<byte> TrimEnd(ReadOnlySpan<byte> s)
    {
        var end = s.Length;
        while (end > 0 && IsBlank(s[end - 1])) end--;
        return s[..end];
    }

    private static ReadOnlySpan<byte> Trim(ReadOnlySpan<byte> s) => TrimEnd(s[SkipBlanks(s, 0)..]);

    /// <summary>
    /// Where the fields of a header line are, after the thread name: "pid/tid sec.frac: rest" preceded by at least
    /// one blank (pid and tid may be negative). Ranges into the line.
    /// </summary>
    private readonly record struct HeaderFields(Range Pid, Range Tid, Range Seconds, Range Fraction, int Rest)
    {
        /// <summary>The fields starting at <paramref name="at"/> (after the blanks that end the thread name), if they are there.</summary>
        public static bool TryMatch(ReadOnlySpan<byte> line, int at, out HeaderFields fields)
        {
            fields = default;
            var i = at;
            if (!Number(line, ref i, signed: true, out var pid) || !Next(line, ref i, (byte)'/')) return false;
            if (!Number(line, ref i, signed: true, out var tid)) return false;
            var blanks = i;
            i = SkipBlanks(line, i);
            if (i == blanks) return false;
            if (!Number(line, ref i, signed: false, out var seconds) || !Next(line, ref i, (byte)'.')) return false;
            if (!Number(line, ref i, signed: false, out var fraction) || !Next(line, ref i, (byte)':')) return false;
            fields = new HeaderFields(pid, tid, seconds, fraction, SkipBlanks(line, i));
            return true;
        }

        private static bool Number(ReadOnlySpan<byte> s, ref int i, bool signed, out Range range)
        {
            var start = i;
            if (signed && i < s.Length && s[i] == (byte)'-') i++;
            var digits = i;
            while (i < s.Length && char.IsAsciiDigit((char)s[i])) i++;
            range = start..i;
            return i > digits;
        }

        private static bool Next(ReadOnlySpan<byte> s, ref int i, byte c)
        {
            if (i >= s.Length || s[i] != c) return false;
            i++;
            return true;
        }
    }

    /// <summary>Byte strings by content: names hashed whole, frame lines on their address and module (<see cref="Hash"/>).</summary>
    private sealed class ByteArrayComparer(bool whole) : IEqualityComparer<byte[]>, IAlternateEqualityComparer<ReadOnlySpan<byte>, byte[]>
    {
        public static readonly ByteArrayComparer Whole = new(whole: true);
        public static readonly ByteArrayComparer FrameLines = new(whole: false);
        public bool Equals(byte[]? x, byte[]? y) => x.AsSpan().SequenceEqual(y);
        public int GetHashCode(byte[] a) => Hash(a, whole);
        public bool Equals(ReadOnlySpan<byte> alternate, byte[] other) => alternate.SequenceEqual(other);
        public int GetHashCode(ReadOnlySpan<byte> alternate) => Hash(alternate, whole);
        public byte[] Create(ReadOnlySpan<byte> alternate) => alternate.ToArray();
    }

    /// <summary>
    /// A hash for the reader's own tables, eight bytes a step (HashCode.AddBytes goes four at a time and showed in
    /// the profile). Text (not <paramref name="whole"/>) is hashed over its first 32 bytes, its last 8 and its length:
    /// a frame line's address is in its first 32 bytes and its module at its end, so lines that differ differ there
    /// (equality still compares every byte). Not randomized: the text is a recording the user made, and a collision
    /// costs time, not answers.
    /// </summary>
    private static int Hash(ReadOnlySpan<byte> s, bool whole)
    {
        const ulong Prime = 0x9E3779B97F4A7C15;
        var h = (ulong)s.Length * Prime;
        if (!whole && s.Length >= 40)
        {
            var words = MemoryMarshal.Cast<byte, ulong>(s[..32]);
            foreach (var w in words) h = BitOperations.RotateLeft((h ^ w) * Prime, 29);
            h = BitOperations.RotateLeft((h ^ MemoryMarshal.Read<ulong>(s[^8..])) * Prime, 29);
        }
        else
        {
            var words = MemoryMarshal.Cast<byte, ulong>(s);
            foreach (var w in words) h = BitOperations.RotateLeft((h ^ w) * Prime, 29);
            for (var i = words.Length * sizeof(ulong); i < s.Length; i++) h = (h ^ s[i]) * Prime;
        }
        h ^= h >> 32;
        return (int)h;
    }
}
