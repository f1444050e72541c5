using System.Globalization;
using EtwSerializerProfiler.Benchmark.Data;

namespace EtwSerializerProfiler.Benchmark.Verification;

/// <summary>
/// The outcome of one round trip. Differences are failures (data changed); Dropped lists capabilities the
/// serializer does not have (private members, shared references) and is not a failure.
/// </summary>
public sealed record VerificationResult(bool Equal, IReadOnlyList<string> Differences, IReadOnlyList<string> Dropped)
{
    /// <summary>"ok", "ok (drops: private members, shared references)" or "MISMATCH: &lt;first difference&gt;".</summary>
    public string Summary => !Equal
        ? "MISMATCH: " + (Differences.Count > 0 ? Differences[0] : "unknown difference")
        : Dropped.Count == 0 ? "ok" : $"ok (drops: {string.Join(", ", Dropped)})";
}

/// <summary>
/// Compares a deserialized graph with the original for the benchmark data types: deep value equality of all public
/// data (byte arrays by content, doubles/floats bit-exact, DateTime by ticks and kind), plus the two capabilities
/// reported as drops: the private BookShelf.Secret and the one shared SharedStringShelf title instance.
/// Linear in the object count; stops collecting messages after <see cref="MaxDifferences"/>.
/// </summary>
public static class RoundTripVerifier
{
    public const string DroppedPrivateMembers = "private members";
    public const string DroppedSharedReferences = "shared references";

    /// <summary>Further differences are counted but not described.</summary>
    public const int MaxDifferences = 20;

    public static VerificationResult Verify(object original, object roundTripped)
    {
        ArgumentNullException.ThrowIfNull(original);
        var c = new Collector();
        if (roundTripped is null)
        {
            c.Diff("result is null");
        }
        else if (original.GetType() != roundTripped.GetType())
        {
            c.Diff($"type {original.GetType().Name} came back as {roundTripped.GetType().Name}");
        }
        else
        {
            switch (original)
            {
                case BookShelf a: CompareBookShelf(c, a, (BookShelf)roundTripped); break;
                case LargeRecordList a: CompareLarge(c, a, (LargeRecordList)roundTripped); break;
                case SharedStringShelf a: CompareShared(c, a, (SharedStringShelf)roundTripped); break;
                default: c.Diff($"no verifier for type {original.GetType().Name}"); break;
            }
        }
        return c.ToResult();
    }

    private static void CompareBookShelf(Collector c, BookShelf a, BookShelf b)
    {
        if (ListCounts(c, "Books", a.Books, b.Books))
        {
            for (var i = 0; i < a.Books.Count; i++)
            {
                var x = a.Books[i];
                var y = b.Books[i];
                if (NullMismatch(c, x, y, "Books", i)) continue;
                if (x is null || y is null) continue;
                Str(c, x.Title, y.Title, i, "Books", "Title");
                if (x.Id != y.Id) c.Diff($"Books[{i}].Id: {x.Id} != {y.Id}");
                if (x.Payload is null != y.Payload is null)
                {
                    c.Diff($"Books[{i}].Payload: {(x.Payload is null ? "null" : "bytes")} came back as {(y.Payload is null ? "null" : "bytes")}");
                }
                else if (x.Payload is not null && !x.Payload.AsSpan().SequenceEqual(y.Payload))
                {
                    c.Diff($"Books[{i}].Payload: content differs ({x.Payload.Length} vs {y.Payload!.Length} bytes)");
                }
            }
        }

        var secretA = a.GetSecret();
        var secretB = b.GetSecret();
        if (!string.Equals(secretA, secretB, StringComparison.Ordinal))
        {
            if (secretA is not null && secretB is null) c.Drop(DroppedPrivateMembers);
            else c.Diff($"Secret: {Quote(secretA)} != {Quote(secretB)}");
        }
    }

    private static void CompareLarge(Collector c, LargeRecordList a, LargeRecordList b)
    {
        if (!ListCounts(c, "Items", a.Items, b.Items)) return;
        for (var i = 0; i < a.Items.Count; i++)
        {
            var x = a.Items[i];
            var y = b.Items[i];
            if (NullMismatch(c, x, y, "Items", i)) continue;
            if (x is null || y is null) continue;
            if (x.Id != y.Id) c.Diff(Member(i, "Id", x.Id, y.Id));
            if (x.Ticks != y.Ticks) c.Diff(Member(i, "Ticks", x.Ticks, y.Ticks));
            if (x.Small != y.Small) c.Diff(Member(i, "Small", x.Small, y.Small));
            if (x.Flags != y.Flags) c.Diff(Member(i, "Flags", x.Flags, y.Flags));
            if (x.IsActive != y.IsActive) c.Diff(Member(i, "IsActive", x.IsActive, y.IsActive));
            if (!x.Price.Equals(y.Price)) c.Diff(Member(i, "Price", x.Price.ToString("R", CultureInfo.InvariantCulture), y.Price.ToString("R", CultureInfo.InvariantCulture)));
            if (!x.Ratio.Equals(y.Ratio)) c.Diff(Member(i, "Ratio", x.Ratio.ToString("R", CultureInfo.InvariantCulture), y.Ratio.ToString("R", CultureInfo.InvariantCulture)));
            if (!x.Weight.Equals(y.Weight)) c.Diff(Member(i, "Weight", x.Weight.ToString("R", CultureInfo.InvariantCulture), y.Weight.ToString("R", CultureInfo.InvariantCulture)));
            if (x.Amount != y.Amount) c.Diff(Member(i, "Amount", x.Amount, y.Amount));
            Str(c, x.Name, y.Name, i, "Items", "Name");
            Str(c, x.Description, y.Description, i, "Items", "Description");
            Str(c, x.Category, y.Category, i, "Items", "Category");
            Date(c, x.Created, y.Created, i, "Created");
            Date(c, x.Modified, y.Modified, i, "Modified");
            if (x.Key != y.Key) c.Diff(Member(i, "Key", x.Key, y.Key));
            if (x.Version != y.Version) c.Diff(Member(i, "Version", x.Version, y.Version));
            if (x.OptionalCode != y.OptionalCode) c.Diff(Member(i, "OptionalCode", x.OptionalCode?.ToString(CultureInfo.InvariantCulture) ?? "null", y.OptionalCode?.ToString(CultureInfo.InvariantCulture) ?? "null"));
            Sequence(c, x.Numbers, y.Numbers, i, "Numbers", static (p, q) => p == q);
            Sequence(c, x.Samples, y.Samples, i, "Samples", static (p, q) => p.Equals(q));
            Sequence(c, x.Tags, y.Tags, i, "Tags", static (p, q) => string.Equals(p, q, StringComparison.Ordinal));
            Counters(c, x.Counters, y.Counters, i);
        }
    }

    private static void CompareShared(Collector c, SharedStringShelf a, SharedStringShelf b)
    {
        if (!ListCounts(c, "Books", a.Books, b.Books)) return;
        for (var i = 0; i < a.Books.Count; i++)
        {
            var x = a.Books[i];
            var y = b.Books[i];
            if (NullMismatch(c, x, y, "Books", i)) continue;
            if (x is null || y is null) continue;
            Str(c, x.Title, y.Title, i, "Books", "Title");
            if (x.Id != y.Id) c.Diff($"Books[{i}].Id: {x.Id} != {y.Id}");
        }
        if (c.Count == 0 && DistinctTitles(b) > DistinctTitles(a)) c.Drop(DroppedSharedReferences);
    }

    /// <summary>Distinct title string instances (by reference, not by value).</summary>
    public static int DistinctTitles(SharedStringShelf shelf)
    {
        ArgumentNullException.ThrowIfNull(shelf);
        var seen = new HashSet<object>(ReferenceEqualityComparer.Instance);
        foreach (var book in shelf.Books)
        {
            if (book?.Title is { } title) seen.Add(title);
        }
        return seen.Count;
    }

    private static void Date(Collector c, DateTime x, DateTime y, int i, string name)
    {
        if (x.Ticks == y.Ticks && x.Kind == y.Kind) return;
        string what;
        if (x.Kind != y.Kind)
        {
            var sameInstant = x.Kind != DateTimeKind.Unspecified && y.Kind != DateTimeKind.Unspecified && x.ToUniversalTime() == y.ToUniversalTime();
            what = x.Ticks == y.Ticks || sameInstant
                ? $"Kind {x.Kind} came back as {y.Kind}{(x.Ticks == y.Ticks ? "" : " (same instant)")}"
                : $"Kind {x.Kind} came back as {y.Kind} and the ticks differ by {Math.Abs(x.Ticks - y.Ticks)}";
        }
        else if (Math.Abs(x.Ticks - y.Ticks) < TimeSpan.TicksPerMillisecond)
        {
            what = $"lost sub-millisecond precision ({x.Ticks} vs {y.Ticks} ticks)";
        }
        else
        {
            what = $"{x:O} != {y:O}";
        }
        c.Diff($"Items[{i}].{name}: {what}");
    }

    private static void Sequence<T>(Collector c, List<T>? x, List<T>? y, int i, string name, Func<T, T, bool> equal)
    {
        var nx = x?.Count ?? 0;
        var ny = y?.Count ?? 0;
        if (nx != ny)
        {
            c.Diff($"Items[{i}].{name}: {nx} elements came back as {ny}");
            return;
        }
        for (var k = 0; k < nx; k++)
        {
            if (!equal(x![k], y![k])) c.Diff($"Items[{i}].{name}[{k}]: {x[k]} != {y[k]}");
        }
    }

    private static void Counters(Collector c, Dictionary<string, int>? x, Dictionary<string, int>? y, int i)
    {
        var nx = x?.Count ?? 0;
        var ny = y?.Count ?? 0;
        if (nx != ny)
        {
            c.Diff($"Items[{i}].Counters: {nx} entries came back as {ny}");
            return;
        }
        if (nx == 0) return;
        foreach (var (key, value) in x!)
        {
            if (!y!.TryGetValue(key, out var other)) c.Diff($"Items[{i}].Counters: key {Quote(key)} missing");
            else if (other != value) c.Diff($"Items[{i}].Counters[{Quote(key)}]: {value} != {other}");
        }
    }

    /// <summary>True when both lists can be compared element by element. A null list counts as empty.</summary>
    private static bool ListCounts<T>(Collector c, string name, List<T>? x, List<T>? y)
    {
        var nx = x?.Count ?? 0;
        var ny = y?.Count ?? 0;
        if (nx == ny) return nx > 0;
        c.Diff($"{name}: {nx} elements came back as {ny}");
        return false;
    }

    private static bool NullMismatch(Collector c, object? x, object? y, string list, int i)
    {
        if (x is null == y is null) return false;
        c.Diff($"{list}[{i}]: {(x is null ? "null" : "object")} came back as {(y is null ? "null" : "object")}");
        return true;
    }

    private static void Str(Collector c, string? x, string? y, int i, string list, string name)
    {
        if (!string.Equals(x, y, StringComparison.Ordinal)) c.Diff($"{list}[{i}].{name}: {Quote(x)} != {Quote(y)}");
    }

    private static string Member<T>(int i, string name, T x, T y) => string.Create(CultureInfo.InvariantCulture, $"Items[{i}].{name}: {x} != {y}");

    private static string Quote(string? s) => s is null ? "null" : s.Length <= 40 ? $"\"{s}\"" : $"\"{s[..37]}...\" ({s.Length} chars)";

    private sealed class Collector
    {
        private readonly List<string> _differences = [];
        private readonly List<string> _dropped = [];

        public int Count { get; private set; }

        public void Diff(string message)
        {
            Count++;
            if (_differences.Count < MaxDifferences) _differences.Add(message);
        }

        public void Drop(string capability)
        {
            if (!_dropped.Contains(capability)) _dropped.Add(capability);
        }

        public VerificationResult ToResult()
        {
            if (Count > _differences.Count) _differences.Add($"... and {Count - _differences.Count} more differences");
            return new VerificationResult(Count == 0, _differences, _dropped);
        }
    }
}
