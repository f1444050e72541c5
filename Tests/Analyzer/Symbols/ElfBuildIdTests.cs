using EtwSerializerProfiler.Analyzer.Symbols;
using EtwSerializerProfiler.Tests.Support;

namespace EtwSerializerProfiler.Tests.Analyzer.Symbols;

/// <summary>The ELF reader against readelf's reading of the same files (Tests/Fixtures/Symbols/README.md).</summary>
public sealed class ElfBuildIdTests : IDisposable
{
    /// <summary>`readelf -n` on both fixture files.</summary>
    public const string FixtureBuildId = "e920e51ad938a36ad9b22ae67610010cd546c08d";
    public static string Fixtures => Path.Combine(Repo.Root, "Tests", "Fixtures", "Symbols");
    private readonly string _dir = Repo.NewTempDir("elf");

    public void Dispose() => Directory.Delete(_dir, recursive: true);

    [Fact]
    public void A_split_debug_file_has_the_build_id_readelf_gives_and_a_symbol_table()
    {
        var elf = ElfBuildId.Read(Path.Combine(Fixtures, "libespburn.so.debug"));
        Assert.NotNull(elf);
        Assert.Equal(FixtureBuildId, elf.BuildId);
        Assert.True(elf.HasSymbols);
    }

    [Fact]
    public void The_stripped_library_has_the_same_build_id_and_no_symbol_table()
    {
        var elf = ElfBuildId.Read(Path.Combine(Fixtures, "libespburn.so"));
        Assert.NotNull(elf);
        Assert.Equal(FixtureBuildId, elf.BuildId);
        Assert.False(elf.HasSymbols);
    }

    [Theory]
    [InlineData(0)]
    [InlineData(4)]
    [InlineData(64)]
    [InlineData(600)]
    [InlineData(3000)]
    public void A_cut_short_ELF_file_is_no_debug_file_and_no_exception(int keep)
    {
        var path = Path.Combine(_dir, "cut.debug");
        File.WriteAllBytes(path, File.ReadAllBytes(Path.Combine(Fixtures, "libespburn.so.debug"))[..keep]);
        Assert.Null(ElfBuildId.Read(path));
    }

    [Fact]
    public void Damaged_section_headers_are_no_debug_file_and_no_exception()
    {
        var bytes = File.ReadAllBytes(Path.Combine(Fixtures, "libespburn.so.debug"));
        var random = new Random(22);
        for (var i = 0; i < 200; i++)
        {
            var damaged = (byte[])bytes.Clone();
            for (var j = 0; j < 8; j++) damaged[random.Next(0x20, 0x40)] = (byte)random.Next(256);
            var path = Path.Combine(_dir, $"d{i}.debug");
            File.WriteAllBytes(path, damaged);
            _ = ElfBuildId.Read(path); // null or a reading; never a throw
        }
    }

    [Fact]
    public void A_text_file_is_no_debug_file()
    {
        var path = Path.Combine(_dir, "notes.txt");
        File.WriteAllText(path, "not an ELF file, just text long enough to have a header's worth of bytes in it");
        Assert.Null(ElfBuildId.Read(path));
    }
}
