using System.Globalization;

namespace EtwSerializerProfiler.Benchmark.Data;

/// <summary>Deterministic test data: the same N and options always give the same graph (no Random without a seed).</summary>
public static class DataFactory
{
    public const int SharedTitleLength = 1024;

    public static Type TypeOf(DataKind kind) => kind switch
    {
        DataKind.BookShelf => typeof(BookShelf),
        DataKind.Large => typeof(LargeRecordList),
        DataKind.SharedStrings => typeof(SharedStringShelf),
        _ => throw new ArgumentOutOfRangeException(nameof(kind)),
    };

    public static object Create(DataKind kind, int count, int payloadBytes = 0) => kind switch
    {
        DataKind.BookShelf => CreateBookShelf(count, payloadBytes),
        DataKind.Large => CreateLarge(count),
        DataKind.SharedStrings => CreateSharedStrings(count),
        _ => throw new ArgumentOutOfRangeException(nameof(kind)),
    };

    public static BookShelf CreateBookShelf(int count, int payloadBytes = 0)
    {
        var shelf = new BookShelf("private secret " + count.ToString(CultureInfo.InvariantCulture));
        shelf.Books.Capacity = count;
        for (var i = 1; i <= count; i++)
        {
            byte[]? payload = null;
            if (payloadBytes > 0)
            {
                payload = new byte[payloadBytes];
                for (var j = 0; j < payload.Length; j++) payload[j] = (byte)(i + j);
            }
            shelf.Books.Add(new Book { Title = "Book " + i.ToString(CultureInfo.InvariantCulture), Id = i, Payload = payload });
        }
        return shelf;
    }

    public static LargeRecordList CreateLarge(int count)
    {
        var list = new LargeRecordList();
        list.Items.Capacity = count;
        var epoch = new DateTime(2020, 1, 1, 0, 0, 0, DateTimeKind.Utc);
        for (var i = 0; i < count; i++)
        {
            var s = i.ToString(CultureInfo.InvariantCulture);
            list.Items.Add(new LargeRecord
            {
                Id = i,
                Ticks = 1_000_000_000L * i,
                Small = (short)(i % 30_000),
                Flags = (byte)(i % 256),
                IsActive = i % 2 == 0,
                Price = i * 1.25,
                Ratio = 1.0 / (i + 1),
                Weight = i * 0.5f,
                Amount = i * 10.01m,
                Name = "Name " + s,
                Description = "Description of record " + s + " with some more text",
                Category = "Category " + (i % 10).ToString(CultureInfo.InvariantCulture),
                Created = epoch.AddSeconds(i),
                Modified = epoch.AddMinutes(i),
                Key = new Guid(i, (short)(i % 1000), 7, 1, 2, 3, 4, 5, 6, 7, 8),
                Numbers = [i, i + 1, i + 2],
                Samples = [i * 0.1, i * 0.2],
                Tags = ["t" + s, "u" + s],
                Counters = new Dictionary<string, int> { ["a"] = i, ["b"] = i * 2 },
                Version = (uint)i,
                OptionalCode = i % 3 == 0 ? null : i,
            });
        }
        return list;
    }

    public static SharedStringShelf CreateSharedStrings(int count)
    {
        var title = string.Create(SharedTitleLength, 0, static (span, _) =>
        {
            for (var i = 0; i < span.Length; i++) span[i] = (char)('a' + (i % 26));
        });
        var shelf = new SharedStringShelf();
        shelf.Books.Capacity = count;
        for (var i = 1; i <= count; i++) shelf.Books.Add(new SharedTitleBook { Title = title, Id = i });
        return shelf;
    }
}
