// What ardupilot_gazebo's ArduPilotPlugin reads from a model's <plugin name="ArduPilotPlugin"> block,
// read as it reads it, with libsdformat (sdf::Element::Get, HasAttribute/GetAttribute) and
// ign-transport's TopicUtils naming the topics its node advertises and subscribes.
//
// Source: ArduPilot/ardupilot_gazebo src/ArduPilotPlugin.cc, commit 082a0fe231f6e63bc8d1598f1cba461d9e2ea7f5:
//   Configure (modelXYZToAirplaneXForwardZDown, gazeboXYZToNED: Get<Pose3d>; lock_step, have_32_channels),
//   InitSockets (fdm_addr, fdm_port_in), LoadImuSensors (imuName, default "imu_sensor"),
//   LoadControlChannels (channel attribute via atoi; type; jointName; cmd_topic; multiplier, offset,
//   servo_min, servo_max with their defaults 1, 0, 1000, 2000), PreUpdate (imuName resolved as a
//   scoped name below the model first: link::sensor here).
// gz-sim src/systems/imu/Imu.cc ImuPrivate::AddSensor: a sensor with no <topic> publishes on its
// scoped name + "/imu", which is what PreUpdate subscribes to; one with a topic publishes there.
//
// usage: ardupilot_plugin MODEL.sdf
// prints: "conf <key> <value>" per setting, "pose <name> x y z roll pitch yaw" (rad),
//         "imu <link> <sensor> <type> <topic or ->" for the sensor imuName names (or "imu - - - -"),
//         "control <channel> <type> <joint> <qualified cmd_topic> <servo_min> <servo_max> <offset> <multiplier>"
#include <cstdlib>
#include <iostream>
#include <string>

#include <ignition/math/Pose3.hh>
#include <ignition/transport/TopicUtils.hh>
#include <sdf/sdf.hh>

using TopicUtils = ignition::transport::TopicUtils;

static std::string Qualified(const std::string &topic)
{
  std::string name;
  if (topic.empty() || !TopicUtils::FullyQualifiedName("", "", topic, name))
    return "<invalid>";
  return name.substr(name.find('@', 1) + 1);
}

static void Pose(const sdf::ElementPtr &p, const std::string &key)
{
  ignition::math::Pose3d pose(0, 0, 0, IGN_PI, 0, 0);  // both defaults in Configure
  if (p->HasElement(key))
    pose = p->Get<ignition::math::Pose3d>(key);
  auto rpy = pose.Rot().Euler();
  std::cout.precision(17);
  std::cout << "pose " << key << " " << pose.Pos().X() << " " << pose.Pos().Y() << " " << pose.Pos().Z() << " "
            << rpy.X() << " " << rpy.Y() << " " << rpy.Z() << std::endl;
}

int main(int argc, char **argv)
{
  if (argc < 2)
    return 2;
  sdf::Root root;
  sdf::Errors errors = root.Load(argv[1]);
  if (!errors.empty() || root.Model() == nullptr)
  {
    for (const auto &e : errors)
      std::cout << argv[1] << ": " << e << std::endl;
    return 1;
  }
  const sdf::Model *model = root.Model();
  sdf::ElementPtr elem = model->Element();
  for (sdf::ElementPtr p = elem->HasElement("plugin") ? elem->GetElement("plugin") : nullptr; p;
       p = p->GetNextElement("plugin"))
  {
    if (p->Get<std::string>("name") != "ArduPilotPlugin")
      continue;
    std::cout << "conf filename " << p->Get<std::string>("filename") << std::endl;
    std::cout << "conf fdm_addr " << p->Get("fdm_addr", std::string("127.0.0.1")).first << std::endl;
    std::cout << "conf fdm_port_in " << p->Get("fdm_port_in", static_cast<uint32_t>(9002)).first << std::endl;
    std::cout << "conf lock_step " << p->Get("lock_step", false).first << std::endl;
    std::cout << "conf have_32_channels " << p->Get("have_32_channels", false).first << std::endl;
    Pose(p, "modelXYZToAirplaneXForwardZDown");
    Pose(p, "gazeboXYZToNED");
    std::string imuName = p->Get("imuName", std::string("imu_sensor")).first;
    std::cout << "conf imuName " << imuName << std::endl;
    // the scoped name below the model: <link>::<sensor>
    bool found = false;
    auto sep = imuName.find("::");
    if (sep != std::string::npos)
    {
      const sdf::Link *link = model->LinkByName(imuName.substr(0, sep));
      const sdf::Sensor *sensor = link ? link->SensorByName(imuName.substr(sep + 2)) : nullptr;
      if (sensor)
      {
        found = true;
        std::cout << "imu " << link->Name() << " " << sensor->Name() << " " << sensor->TypeStr() << " "
                  << (sensor->Topic().empty() ? "-" : sensor->Topic()) << std::endl;
      }
    }
    if (!found)
      std::cout << "imu - - - -" << std::endl;
    for (sdf::ElementPtr c = p->HasElement("control") ? p->GetElement("control") : nullptr; c;
         c = c->GetNextElement("control"))
    {
      int channel = c->HasAttribute("channel") ? atoi(c->GetAttribute("channel")->GetAsString().c_str()) : -1;
      std::string type = c->HasElement("type") ? c->Get<std::string>("type") : "VELOCITY";
      std::string joint = c->HasElement("jointName") ? c->Get<std::string>("jointName") : "-";
      std::string topic = c->HasElement("cmd_topic") ? c->Get<std::string>("cmd_topic") : "";
      double multiplier = c->HasElement("multiplier") ? c->Get<double>("multiplier") : 1.0;
      double offset = c->HasElement("offset") ? c->Get<double>("offset") : 0.0;
      double servo_min = c->HasElement("servo_min") ? c->Get<double>("servo_min") : 1000.0;
      double servo_max = c->HasElement("servo_max") ? c->Get<double>("servo_max") : 2000.0;
      std::cout.precision(17);
      std::cout << "control " << channel << " " << type << " " << joint << " "
                << (model->JointByName(joint) ? "" : "<no-joint>") << Qualified(topic) << " " << servo_min << " "
                << servo_max << " " << offset << " " << multiplier << std::endl;
    }
  }
  return 0;
}
